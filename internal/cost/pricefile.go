package cost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sparkdx/sparkdx/internal/model"
)

// PriceList is what resources cost, from a price file (docs/cost.md):
// one price per core-hour and per GB-hour, and optionally other prices
// for the applications that ran on a given instance type. The zero
// PriceList prices nothing: hours only.
type PriceList struct {
	Prices
	// InstanceTypes are the prices of applications whose Spark
	// properties name their instance type (instanceTypeProperties).
	InstanceTypes map[string]Prices `json:"instanceTypes,omitempty"`
}

// instanceTypeProperties are the Spark properties an application's
// instance type is read from, the first set winning: sparkdx's own (set
// it with --conf at submit), the node type Databricks writes into every
// application's properties, and a Kubernetes node selector on the
// well-known instance-type label (the current and the deprecated beta
// one).
var instanceTypeProperties = []string{
	"spark.sparkdx.instanceType",
	"spark.databricks.clusterUsageTags.clusterNodeType",
	"spark.kubernetes.node.selector.node.kubernetes.io/instance-type",
	"spark.kubernetes.node.selector.beta.kubernetes.io/instance-type",
}

// InstanceTypeOf is the instance type an attempt's Spark properties
// name, "" for none: what a price list prices it by.
func InstanceTypeOf(a *model.Attempt) string {
	props := map[string]string{}
	if a != nil {
		for _, p := range a.Env.SparkProperties {
			props[p[0]] = p[1]
		}
	}
	return instanceType(props)
}

// instanceType is the instance type props name, "" for none.
func instanceType(props map[string]string) string {
	for _, k := range instanceTypeProperties {
		if v := strings.TrimSpace(props[k]); v != "" {
			return v
		}
	}
	return ""
}

// Set tells whether the list prices anything.
func (l PriceList) Set() bool { return l.Prices.Set() || len(l.InstanceTypes) > 0 }

// For is the prices of an application on instance type it ("" when its
// properties name none): the instance type's when listed, else the
// default ones.
func (l PriceList) For(it string) Prices {
	if p, ok := l.InstanceTypes[it]; ok && it != "" {
		return p
	}
	return l.Prices
}

// ValidPrice tells whether v can be a price: a finite number ≥ 0.
func ValidPrice(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// Validate checks every price is a finite number ≥ 0 and every instance
// type has a name.
func (l PriceList) Validate() error {
	check := func(where string, p Prices) error {
		for _, v := range []struct {
			name string
			v    float64
		}{{"coreHour", p.CoreHour}, {"gbHour", p.GBHour}} {
			if !ValidPrice(v.v) {
				return fmt.Errorf("%s%s %v: want a number ≥ 0", where, v.name, v.v)
			}
		}
		return nil
	}
	if err := check("", l.Prices); err != nil {
		return err
	}
	types := make([]string, 0, len(l.InstanceTypes))
	for it := range l.InstanceTypes {
		types = append(types, it)
	}
	slices.Sort(types) // the first error is the same every time
	for _, it := range types {
		if strings.TrimSpace(it) == "" {
			return fmt.Errorf("instanceTypes: an empty instance type name")
		}
		if err := check("instanceTypes."+it+".", l.InstanceTypes[it]); err != nil {
			return err
		}
	}
	return nil
}

// maxPriceFile bounds a price file: a list of prices, not a data set.
const maxPriceFile = 1 << 20

// ParsePriceList reads a price file, YAML or JSON (JSON is YAML), and
// validates it. Unknown keys are errors: a misspelt price must not
// silently price nothing.
func ParsePriceList(b []byte) (PriceList, error) {
	if len(b) > maxPriceFile {
		return PriceList{}, fmt.Errorf("price file of %d bytes: want at most %d", len(b), maxPriceFile)
	}
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return PriceList{}, fmt.Errorf("price file: %w", err)
	}
	// Through JSON so that one set of field names (the json tags) holds
	// for both syntaxes.
	j, err := json.Marshal(doc)
	if err != nil {
		return PriceList{}, fmt.Errorf("price file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	var l PriceList
	if err := dec.Decode(&l); err != nil {
		return PriceList{}, fmt.Errorf("price file: %w", err)
	}
	if err := l.Validate(); err != nil {
		return PriceList{}, fmt.Errorf("price file: %w", err)
	}
	if !l.Set() {
		return PriceList{}, fmt.Errorf("price file names no price: want coreHour, gbHour or instanceTypes")
	}
	return l, nil
}

// PriceWith fills every Money at the prices of the attempt's instance
// type (or the list's defaults); a list without prices removes them.
func (c *Cost) PriceWith(l PriceList) {
	if c == nil {
		return
	}
	c.Price(l.For(c.InstanceType))
}

package cost_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/cost"
)

// TestParsePriceList reads price files in YAML and JSON and refuses the
// ones that would price wrongly: a misspelt key, a negative or non-number
// price, an empty instance type, a file pricing nothing.
func TestParsePriceList(t *testing.T) {
	tests := []struct {
		name, file string
		want       cost.PriceList
		err        string // "" for none; else a part of the error
	}{
		{name: "yaml defaults", file: "coreHour: 0.05\ngbHour: 0.006\n",
			want: cost.PriceList{Prices: cost.Prices{CoreHour: 0.05, GBHour: 0.006}}},
		{name: "json with instance types", file: `{"coreHour": 0.05, "gbHour": 0.006, "instanceTypes": {"m5.2xlarge": {"coreHour": 0.048, "gbHour": 0.0064}}}`,
			want: cost.PriceList{Prices: cost.Prices{CoreHour: 0.05, GBHour: 0.006},
				InstanceTypes: map[string]cost.Prices{"m5.2xlarge": {CoreHour: 0.048, GBHour: 0.0064}}}},
		{name: "instance types only", file: "instanceTypes:\n  r5.xlarge:\n    gbHour: 0.0075\n",
			want: cost.PriceList{InstanceTypes: map[string]cost.Prices{"r5.xlarge": {GBHour: 0.0075}}}},
		{name: "misspelt key", file: "coreHours: 0.05\n", err: `unknown field "coreHours"`},
		{name: "misspelt instance key", file: "instanceTypes:\n  m5.large: {cpuHour: 1}\n", err: `unknown field "cpuHour"`},
		{name: "negative", file: "coreHour: -1\n", err: "coreHour -1: want a number ≥ 0"},
		{name: "negative instance price", file: "instanceTypes:\n  m5.large: {gbHour: -0.5}\n", err: "instanceTypes.m5.large.gbHour -0.5"},
		{name: "not a number", file: "coreHour: cheap\n", err: "price file"},
		{name: "empty instance type", file: "instanceTypes:\n  \"\": {coreHour: 1}\n", err: "empty instance type"},
		{name: "empty file", file: "", err: "names no price"},
		{name: "not yaml", file: "coreHour: [1\n", err: "price file"},
		{name: "too large", file: "coreHour: 1\n" + strings.Repeat("#", 1<<20), err: "want at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cost.ParsePriceList([]byte(tt.file))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("got error %v, want none", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("got error %v, want one with %q", err, tt.err)
			case tt.err != "":
				return
			}
			if got.Prices != tt.want.Prices || len(got.InstanceTypes) != len(tt.want.InstanceTypes) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for it, p := range tt.want.InstanceTypes {
				if got.InstanceTypes[it] != p {
					t.Errorf("instance type %s: got %+v, want %+v", it, got.InstanceTypes[it], p)
				}
			}
		})
	}
}

// TestDocumentedPriceFile parses the example docs/cost.md points to.
func TestDocumentedPriceFile(t *testing.T) {
	b, err := os.ReadFile("../../docs/prices.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := cost.ParsePriceList(b)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Prices.Set() || len(l.InstanceTypes) == 0 {
		t.Errorf("got %+v, want default prices and instance types", l)
	}
}

// TestPriceWith prices an attempt by the instance type its properties
// name: each property sparkdx reads, the first one set winning, and the
// defaults for a type the list does not name or an attempt naming none.
func TestPriceWith(t *testing.T) {
	l := cost.PriceList{Prices: cost.Prices{CoreHour: 1, GBHour: 0.1},
		InstanceTypes: map[string]cost.Prices{"m5.2xlarge": {CoreHour: 2, GBHour: 0.2}, "Standard_DS3_v2": {CoreHour: 3}}}
	res := &analyze.Result{DurationMs: hour, Config: analyze.Config{DriverMemoryBytes: gib - 384*mib}}
	tests := []struct {
		name  string
		props [][2]string
		it    string
		want  float64 // the total's money: 1 driver core-hour and 1 GB-hour
	}{
		{"none named", nil, "", 1.1},
		{"sparkdx's own", [][2]string{{"spark.sparkdx.instanceType", "m5.2xlarge"}}, "m5.2xlarge", 2.2},
		{"databricks node type", [][2]string{{"spark.databricks.clusterUsageTags.clusterNodeType", "Standard_DS3_v2"}}, "Standard_DS3_v2", 3},
		{"kubernetes node selector", [][2]string{{"spark.kubernetes.node.selector.node.kubernetes.io/instance-type", "m5.2xlarge"}}, "m5.2xlarge", 2.2},
		{"sparkdx's wins", [][2]string{{"spark.kubernetes.node.selector.node.kubernetes.io/instance-type", "m5.2xlarge"},
			{"spark.sparkdx.instanceType", "Standard_DS3_v2"}}, "Standard_DS3_v2", 3},
		{"type not listed", [][2]string{{"spark.sparkdx.instanceType", "c5.large"}}, "c5.large", 1.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cost.Of(attempt(tt.props...), res)
			if c.InstanceType != tt.it {
				t.Errorf("instance type: got %q, want %q", c.InstanceType, tt.it)
			}
			c.PriceWith(l)
			if c.Total.Money == nil || !near(*c.Total.Money, tt.want) {
				t.Errorf("total money: got %v, want %v (%+v)", c.Total.Money, tt.want, c.Total)
			}
		})
	}
	c := cost.Of(attempt(), res)
	c.PriceWith(cost.PriceList{})
	if c.Total.Money != nil || c.Prices != nil {
		t.Errorf("no prices: got money %v, prices %v, want none", c.Total.Money, c.Prices)
	}
}

package main

import (
	"flag"
	"os"

	"github.com/sparkdx/sparkdx/internal/cost"
)

// priceFlags are --price-file, --price-core-hour and --price-gb-hour:
// without them the cost is shown in hours only, as sparkdx cannot know
// what a cluster costs.
type priceFlags struct {
	file             *string
	coreHour, gbHour *float64
}

func addPriceFlags(fs *flag.FlagSet) priceFlags {
	return priceFlags{
		file:     fs.String("price-file", "", "YAML or JSON file of prices per core-hour and GB-hour, optionally per instance type (docs/cost.md)"),
		coreHour: fs.Float64("price-core-hour", 0, "what one core-hour costs, to show money beside hours (default none: hours only; overrides the price file's)"),
		gbHour:   fs.Float64("price-gb-hour", 0, "what one GB-hour (2^30 bytes) of memory costs (default none: hours only; overrides the price file's)"),
	}
}

// prices reads the price file, lets the flags set its default prices,
// and checks the result.
func (p priceFlags) prices() (cost.PriceList, error) {
	var l cost.PriceList
	if *p.file != "" {
		b, err := os.ReadFile(*p.file)
		if err != nil {
			return l, usageErr("--price-file: %v", err)
		}
		if l, err = cost.ParsePriceList(b); err != nil {
			return l, usageErr("--price-file %s: %v", *p.file, err)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
		to   *float64
	}{{"--price-core-hour", *p.coreHour, &l.CoreHour}, {"--price-gb-hour", *p.gbHour, &l.GBHour}} {
		if !cost.ValidPrice(f.v) {
			return cost.PriceList{}, usageErr("%s %v: want a number ≥ 0", f.name, f.v)
		}
		if f.v != 0 {
			*f.to = f.v
		}
	}
	return l, nil
}

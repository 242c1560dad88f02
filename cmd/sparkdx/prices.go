package main

import (
	"flag"
	"math"

	"github.com/sparkdx/sparkdx/internal/cost"
)

// priceFlags are --price-core-hour and --price-gb-hour: without them the
// cost is shown in hours only, as sparkdx cannot know what a cluster costs.
type priceFlags struct{ coreHour, gbHour *float64 }

func addPriceFlags(fs *flag.FlagSet) priceFlags {
	return priceFlags{
		coreHour: fs.Float64("price-core-hour", 0, "what one core-hour costs, to show money beside hours (default none: hours only)"),
		gbHour:   fs.Float64("price-gb-hour", 0, "what one GB-hour (2^30 bytes) of memory costs (default none: hours only)"),
	}
}

// prices checks the flags: a price is a finite number ≥ 0.
func (p priceFlags) prices() (cost.Prices, error) {
	for name, v := range map[string]float64{"--price-core-hour": *p.coreHour, "--price-gb-hour": *p.gbHour} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return cost.Prices{}, usageErr("%s %v: want a number ≥ 0", name, v)
		}
	}
	return cost.Prices{CoreHour: *p.coreHour, GBHour: *p.gbHour}, nil
}

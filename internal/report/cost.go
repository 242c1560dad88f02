package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/units"
)

// costStagesShown is how many of the costliest stages the cost section
// names.
const costStagesShown = 3

// CostLines are the cost section's rows for people (text, HTML, serve):
// the total, executors and driver, the costliest stages and what each
// finding wasted. Nil without a cost.
func CostLines(c *cost.Cost) [][2]string {
	if c == nil || c.Total.CoreHours == 0 && c.Total.MemoryGBHours == 0 {
		return nil
	}
	out := [][2]string{{"total", c.Total.String()}, {"executors", c.Executors.String()}, {"driver", c.Driver.String()}}
	if c.Prices != nil {
		out = append(out, [2]string{"prices", fmt.Sprintf("%s per core-hour, %s per GB-hour", // as given: 0.0425 is not 0.04
			strconv.FormatFloat(c.Prices.CoreHour, 'f', -1, 64), strconv.FormatFloat(c.Prices.GBHour, 'f', -1, 64))})
	} else {
		out = append(out, [2]string{"prices", "none given (--price-core-hour, --price-gb-hour): hours only"})
	}
	stages := slices.Clone(c.Stages)
	slices.SortStableFunc(stages, func(a, b cost.Part) int { return cmpDesc(a.CoreHours, b.CoreHours) })
	var top []string
	for _, s := range stages[:min(len(stages), costStagesShown)] {
		top = append(top, fmt.Sprintf("stage %d: %s (%s)", s.ID, s.Usage.String(), pct(s.CoreHours, c.Total.CoreHours)))
	}
	if len(top) > 0 {
		out = append(out, [2]string{"stages", strings.Join(top, "; ")})
	}
	for _, f := range c.Findings {
		out = append(out, [2]string{"wasted", fmt.Sprintf("%s (%s of the total): %s", f.Usage.String(),
			pct(f.CoreHours, c.Total.CoreHours), units.OneLine(f.Title))})
	}
	return out
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func pct(part, whole float64) string {
	if whole <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f %%", 100*part/whole)
}

// writeCost prints the cost section.
func writeCost(w io.Writer, c *cost.Cost, st style) {
	lines := CostLines(c)
	if lines == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s\n", st.bold("Cost"))
	for _, l := range lines {
		fmt.Fprintf(w, "  %s  %s\n", st.dim(fmt.Sprintf("%-9s", l[0])), l[1])
	}
}

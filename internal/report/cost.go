package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/units"
)

// costStagesShown is how many of the costliest stages the cost section
// names.
const costStagesShown = 3

// fmtUsage says a usage the way every view does: "1.25 core-h · 4.8
// GB-h", then its money when priced.
func fmtUsage(u cost.Usage) string {
	s := fmt.Sprintf("%s core-h · %s GB-h", fmtHours(u.CoreHours), fmtHours(u.MemoryGBHours))
	if u.Money != nil {
		s += fmt.Sprintf(" · %s", fmtMoney(*u.Money))
	}
	return s
}

// fmtHours keeps three significant digits: a short app holds a few
// thousandths of a core-hour.
func fmtHours(h float64) string {
	switch {
	case h == 0:
		return "0"
	case h < 0.01:
		return fmt.Sprintf("%.4f", h)
	case h < 10:
		return fmt.Sprintf("%.3g", h)
	}
	return fmt.Sprintf("%.0f", h)
}

// fmtMoney prints money without a currency: the prices are the user's.
func fmtMoney(m float64) string {
	if m < 0.01 && m > 0 {
		return fmt.Sprintf("%.4f", m)
	}
	return fmt.Sprintf("%.2f", m)
}

// CostLines are the cost section's rows for people (text, HTML, serve):
// the total, executors and driver, the costliest stages and what each
// finding wasted. Nil without a cost.
func CostLines(c *cost.Cost) [][2]string {
	if c == nil || c.Total.CoreHours == 0 && c.Total.MemoryGBHours == 0 {
		return nil
	}
	out := [][2]string{{"total", fmtUsage(c.Total)}, {"executors", fmtUsage(c.Executors)}, {"driver", fmtUsage(c.Driver)}}
	if c.Prices != nil {
		out = append(out, [2]string{"prices", fmt.Sprintf("%s per core-hour, %s per GB-hour", fmtMoney(c.Prices.CoreHour), fmtMoney(c.Prices.GBHour))})
	} else {
		out = append(out, [2]string{"prices", "none given (--price-core-hour, --price-gb-hour): hours only"})
	}
	stages := slices.Clone(c.Stages)
	slices.SortStableFunc(stages, func(a, b cost.Part) int { return cmpDesc(a.CoreHours, b.CoreHours) })
	var top []string
	for _, s := range stages[:min(len(stages), costStagesShown)] {
		top = append(top, fmt.Sprintf("stage %d: %s (%s)", s.ID, fmtUsage(s.Usage), pct(s.CoreHours, c.Total.CoreHours)))
	}
	if len(top) > 0 {
		out = append(out, [2]string{"stages", strings.Join(top, "; ")})
	}
	for _, f := range c.Findings {
		out = append(out, [2]string{"wasted", fmt.Sprintf("%s (%s of the total): %s", fmtUsage(f.Usage),
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

package cost

import "github.com/sparkdx/sparkdx/internal/diagnose"

// AddFindings records what each finding with a core-time cost wasted, in
// core-hours with the memory those cores held: the unit of the app's own
// cost, so a finding reads as a share of the bill.
func (c *Cost) AddFindings(fs []diagnose.Finding) {
	if c == nil {
		return
	}
	for _, f := range fs {
		if f.Cost == nil || f.Cost.CoreMs <= 0 {
			continue
		}
		c.Findings = append(c.Findings, FindingCost{Rule: f.Rule, Title: f.Title, Usage: c.CoreMs(f.Cost.CoreMs)})
	}
	if c.Prices != nil {
		c.Price(*c.Prices)
	}
}

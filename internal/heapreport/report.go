// Package heapreport renders what sparkdx heap found in a dump: the class
// histogram and, when computed, who holds the heap (the dominator tree), as
// text for people, sparkdx.heap/v1 JSON for programs and one HTML page.
package heapreport

import "github.com/sparkdx/sparkdx/internal/jvm/hprof"

// Report is one dump's histogram, its dominator tree when computed, and
// the same of a baseline dump when there is one.
type Report struct {
	Path, BasePath         string
	Hist, Base             *hprof.Histogram
	Retained, BaseRetained *hprof.Retained // with --retained
}

// RetainedGrowth is the change in retained bytes per top-level dominator
// class since the baseline (nil without --retained and a baseline).
func (r Report) RetainedGrowth() []hprof.Growth {
	if r.Retained == nil || r.BaseRetained == nil {
		return nil
	}
	return hprof.Diff(retainedStats(r.BaseRetained), retainedStats(r.Retained))
}

func retainedStats(r *hprof.Retained) []hprof.ClassStat {
	out := make([]hprof.ClassStat, len(r.ByClass))
	for i, c := range r.ByClass {
		out[i] = hprof.ClassStat{Class: c.Class, Instances: c.Objects, Bytes: c.Retained}
	}
	return out
}

package chart

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// StageBar is one stage attempt on the stage timeline.
type StageBar struct {
	Stage      *analyze.Stage
	Start, End int64 // epoch ms
	// Running: the attempt has no completion time, so its bar runs to
	// the application's end (or now, for one still running).
	Running bool
}

// Stages is the stage timeline as Spark's job page draws it: every stage
// attempt with a submission time, from submission to completion (to the
// application's end when it has none), in submission order. An attempt
// without a submission time (pending, skipped) is not drawn: Spark draws
// none either, and before Spark 2 it wrote that time only once the stage
// completed.
func Stages(r *analyze.Result) []StageBar {
	var bars []StageBar
	for i := range r.Stages {
		s := &r.Stages[i]
		if s.SubmissionTime <= 0 {
			continue
		}
		b := StageBar{Stage: s, Start: s.SubmissionTime, End: s.CompletionTime}
		if b.End <= 0 {
			b.End, b.Running = r.EndTime, true
		}
		bars = append(bars, b)
	}
	sort.SliceStable(bars, func(i, j int) bool { return bars[i].Start < bars[j].Start })
	return bars
}

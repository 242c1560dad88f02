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
// attempt that started, from submission to completion (to the
// application's end when it has none, or now for one still running), in
// start order. An attempt that never launched a task and has no
// submission time (pending, skipped) is not drawn. Before Spark 2 the
// driver wrote a stage's submission time only once the stage completed,
// so a running stage of such a log starts at its first task's launch —
// else a running application's timeline would be empty.
func Stages(r *analyze.Result) []StageBar {
	var bars []StageBar
	for i := range r.Stages {
		s := &r.Stages[i]
		start := s.SubmissionTime
		if start <= 0 {
			start = s.FirstLaunchTime
		}
		if start <= 0 {
			continue
		}
		b := StageBar{Stage: s, Start: start, End: s.CompletionTime}
		if b.End <= 0 {
			b.End, b.Running = r.EndTime, true
		}
		bars = append(bars, b)
	}
	sort.SliceStable(bars, func(i, j int) bool { return bars[i].Start < bars[j].Start })
	return bars
}

package analyze

import (
	"slices"
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// busyCurve is the number of tasks running over time, with its running
// integral, so that the task time inside any window costs a binary search.
type busyCurve struct {
	times   []int64 // change points, ascending
	running []int64 // tasks running from times[i] to times[i+1]
	cum     []int64 // task-ms from times[0] to times[i]
}

func newBusyCurve(a *model.Attempt) *busyCurve {
	// Starts and ends sorted apart as plain integers and merged: one
	// sort of (time, ±1) pairs through a comparison function was half of
	// this on a 1 GB log.
	var starts, ends []int64
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime != 0 && t.FinishTime >= t.LaunchTime {
				starts = append(starts, t.LaunchTime)
				ends = append(ends, t.FinishTime)
			}
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	c := &busyCurve{}
	var run int64
	for i, k := 0, 0; i < len(starts) || k < len(ends); {
		var x int64
		if k < len(ends) {
			x = ends[k]
		}
		if i < len(starts) && (k == len(ends) || starts[i] < x) {
			x = starts[i]
		}
		for ; i < len(starts) && starts[i] == x; i++ {
			run++
		}
		for ; k < len(ends) && ends[k] == x; k++ {
			run--
		}
		if n := len(c.times); n > 0 {
			c.cum = append(c.cum, model.SatAdd(c.cum[n-1], model.SatMul(c.running[n-1], model.Span(c.times[n-1], x))))
		} else {
			c.cum = append(c.cum, 0)
		}
		c.times = append(c.times, x)
		c.running = append(c.running, run)
	}
	return c
}

// at is the task-ms run before time x.
func (c *busyCurve) at(x int64) int64 {
	k := sort.Search(len(c.times), func(i int) bool { return c.times[i] > x }) - 1
	if k < 0 {
		return 0
	}
	return c.cum[k] + c.running[k]*(x-c.times[k])
}

// between is the task-ms run in [from, to].
func (c *busyCurve) between(from, to int64) int64 {
	if to <= from {
		return 0
	}
	return c.at(to) - c.at(from)
}

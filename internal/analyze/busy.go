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
	type step struct{ t, d int64 }
	var steps []step
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime != 0 && t.FinishTime >= t.LaunchTime {
				steps = append(steps, step{t.LaunchTime, 1}, step{t.FinishTime, -1})
			}
		}
	}
	slices.SortFunc(steps, func(x, y step) int {
		switch {
		case x.t < y.t:
			return -1
		case x.t > y.t:
			return 1
		}
		return 0
	})
	c := &busyCurve{}
	var run int64
	for i, st := range steps {
		run += st.d
		if i+1 < len(steps) && steps[i+1].t == st.t {
			continue
		}
		if n := len(c.times); n > 0 {
			c.cum = append(c.cum, model.SatAdd(c.cum[n-1], model.SatMul(c.running[n-1], model.Span(c.times[n-1], st.t))))
		} else {
			c.cum = append(c.cum, 0)
		}
		c.times = append(c.times, st.t)
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

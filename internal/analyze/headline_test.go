package analyze

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestHeadline pins the headline's definitions: core time used is task
// time over Σ executor cores × lifetime (the driver's only in local mode,
// the most cores × the duration when no executor names its cores); GC is
// the capped GC time over run time; tasks count each attempt once,
// launched = finished + unfinished; an exit code the log lacks stays nil.
func TestHeadline(t *testing.T) {
	stage := func(taskMs, gc, run int64, o Outcomes) Stage {
		return Stage{TaskTimes: TaskTimes{TaskTimeMs: taskMs, GCShareMs: gc, RunTimeTotalMs: run}, Outcomes: o}
	}
	launched := func(n int) *model.Attempt {
		a := model.NewAttempt()
		s := &model.StageAttempt{}
		for i := range n {
			s.Tasks = append(s.Tasks, &model.Task{TaskID: int64(i)})
		}
		a.Stages = []*model.StageAttempt{s}
		return a
	}
	zero := 0
	for _, c := range []struct {
		name     string
		a        *model.Attempt
		r        Result
		used, gc float64
		tasks    TaskCounts
		exit     *int
	}{
		{"executors, the driver left out", launched(4), Result{
			Executors: []Executor{{ID: "driver", Cores: 4, LifetimeMs: 1000}, {ID: "1", Cores: 2, LifetimeMs: 1000},
				{ID: "2", Cores: 2, LifetimeMs: 1000}},
			Stages: []Stage{stage(2000, 30, 1000, Outcomes{Attempts: 3, Succeeded: 2, Failed: 1, SpeculativeTasks: 1})}},
			0.5, 0.03, TaskCounts{Launched: 4, Finished: 3, Succeeded: 2, Failed: 1, Unfinished: 1, Speculative: 1}, nil},
		{"local mode: the driver is the executor", launched(2), Result{
			Executors: []Executor{{ID: "driver", Cores: 4, LifetimeMs: 1000}},
			Stages:    []Stage{stage(1000, 0, 900, Outcomes{Attempts: 2, Succeeded: 1, Killed: 1})}},
			0.25, 0, TaskCounts{Launched: 2, Finished: 2, Succeeded: 1, Killed: 1}, nil},
		{"no core counts: the most cores × the duration", launched(1), Result{DurationMs: 1000,
			CriticalPath: CriticalPath{MaxCores: 2},
			Stages:       []Stage{stage(500, 0, 400, Outcomes{Attempts: 1, Succeeded: 1})}},
			0.25, 0, TaskCounts{Launched: 1, Finished: 1, Succeeded: 1}, nil},
		{"nothing ran, exit 0", func() *model.Attempt { a := model.NewAttempt(); a.ExitCode = &zero; return a }(),
			Result{}, 0, 0, TaskCounts{}, &zero},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := headline(c.a, &c.r)
			if h.CoreTimeUsed != c.used || h.GCShare != c.gc || h.Tasks != c.tasks {
				t.Errorf("got core time used %v, GC %v, tasks %+v; want %v, %v, %+v", h.CoreTimeUsed, h.GCShare, h.Tasks,
					c.used, c.gc, c.tasks)
			}
			if (h.ExitCode == nil) != (c.exit == nil) || h.ExitCode != nil && *h.ExitCode != *c.exit {
				t.Errorf("got exit code %v, want %v", h.ExitCode, c.exit)
			}
		})
	}
}

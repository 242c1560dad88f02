package diagnose_test

import (
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

// TestTinyTasksAppShare pins the gate on the application's share: stages
// that each pay 3 % of the app in overhead are together worth a warning,
// one finding listing them; one of them alone is info. A job Spark
// describes as listing files is left out whatever its stage is called.
func TestTinyTasksAppShare(t *testing.T) {
	tiny := func(id, job int) analyze.Stage {
		// 200 tasks of 100 ms on 2 cores, 36 s of overhead: 18 s of wall,
		// 3 % of a 10-min application.
		return analyze.Stage{StageID: id, JobIDs: []int{job}, SQLExecutionID: 1, NumTasks: 200, DurationMs: 20 * sec,
			TaskTimes: analyze.TaskTimes{TaskDurationMs: analyze.Quantiles{P50: 100}, TaskTimeMs: 60 * sec, SchedulerDelayMs: 36 * sec},
			Capacity:  analyze.Capacity{CoresAvailable: 2},
			Outcomes:  analyze.Outcomes{Succeeded: 200, Attempts: 200}}
	}
	attempt := model.NewAttempt()
	for _, j := range []*model.Job{{ID: 1}, {ID: 2}, {ID: 3, Description: "Listing leaf files and directories for 200 paths:<br/>s3://b/t"}} {
		attempt.AddJob(j)
	}
	for _, c := range []struct {
		name   string
		stages []analyze.Stage
		sev    diagnose.Severity
		ids    []int
	}{
		{"one stage, 3 % of the app", []analyze.Stage{tiny(1, 1)}, diagnose.Info, []int{1}},
		{"two stages, 6 % of the app", []analyze.Stage{tiny(1, 1), tiny(2, 2)}, diagnose.Warning, []int{1, 2}},
		{"a listing job does not count", []analyze.Stage{tiny(1, 1), tiny(2, 3)}, diagnose.Info, []int{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := &analyze.Result{DurationMs: 10 * mn, Stages: c.stages}
			fs := diagnose.Run(&diagnose.Pass{Attempt: attempt, Result: res}, []*diagnose.Rule{diagnose.TinyTasks})
			if len(fs) != 1 || fs[0].Severity != c.sev || !slices.Equal(fs[0].StageIDs, c.ids) {
				t.Fatalf("got %s, want one %v finding on stages %v", dump(fs), c.sev, c.ids)
			}
		})
	}
}

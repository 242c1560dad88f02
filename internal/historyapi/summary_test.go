package historyapi

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestTaskSummaryDiskStoreSemantics: the positions come from the tasks with
// a recorded run time (successful ones), but duration is scanned over every
// task, failed ones included, as the History Server's disk store does.
func TestTaskSummaryDiskStoreSemantics(t *testing.T) {
	a := model.NewAttempt()
	s, _ := a.StageOrNew(0, 0)
	add := func(id, dur, run, deser int64, failed bool) {
		k := &model.Task{TaskID: id, LaunchTime: 1000, FinishTime: 1000 + dur, Failed: failed}
		k.SetMetrics(&model.TaskMetrics{ExecutorRunTime: run, ExecutorDeserializeTime: deser,
			ShuffleRead: model.ShuffleReadMetrics{LocalBytesRead: run}})
		s.AddTask(k)
	}
	add(1, 10, 5, 1, false)
	add(2, 20, 15, 0, false)
	add(3, 30, 25, 1, false)
	add(4, 5, 4, 2, true) // failed: shortest duration
	// Failed after 0 ms of deserialization: stored as -1, the History
	// Server's "no metrics", out of the shuffle totals.
	add(5, 40, 0, 0, true)
	d := TaskSummary(a, s, []float64{0, 0.5, 1}).obj()
	check := func(name string, got any, want []float64) {
		t.Helper()
		g := got.([]any)
		for i, w := range want {
			if g[i] != w {
				t.Errorf("%s: got %v, want %v", name, g, want)
				return
			}
		}
	}
	check("executorRunTime", d.Get("executorRunTime"), []float64{5, 15, 25})
	// count = 3 → positions 0, 1, 2 over durations [5 10 20 30 40]
	check("duration", d.Get("duration"), []float64{5, 10, 20})
	// readBytes is keyed and valued by the true sum for every task with
	// metrics, the failed one included (Spark 4's History Server), but not
	// task 5, whose stored deserialization time says it has none.
	check("readBytes", d.Get("shuffleReadMetrics").(*Obj).Get("readBytes"), []float64{4, 5, 15})

	if TaskSummary(a, &model.StageAttempt{}, []float64{0.5}) != nil {
		t.Error("got a summary for a stage without tasks, want none")
	}
}

package reportv1

import (
	"encoding/json"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

func task(id int64, exec string, launch, finish int64, input, gc int64, failed bool) *model.Task {
	t := &model.Task{TaskID: id, ExecutorID: exec, LaunchTime: launch, FinishTime: finish, Failed: failed}
	t.SetMetrics(&model.TaskMetrics{InputBytesRead: input, JvmGcTime: gc})
	return t
}

func TestBuild(t *testing.T) {
	a := model.NewAttempt()
	a.AppID, a.AppName, a.StartTime, a.EndTime, a.Completed = "app-1", "n", 1000, 5000, true
	a.Env.SparkProperties = [][2]string{{"spark.master", "yarn"}}
	e := a.AddExecutor("1", 1100)
	e.Host, e.TotalCores = "h1", 4
	e.Peak.Set = true
	e.Peak.Values[model.MetricJVMHeapMemory] = 1 << 30
	s, _ := a.StageOrNew(0, 0)
	s.Name, s.Status, s.NumTasks, s.SubmissionTime, s.CompletionTime = "map", model.StageComplete, 4, 2000, 2600
	for i, d := range []int64{100, 100, 200, 500} {
		s.AddTask(task(int64(i), "1", 2000, 2000+d, 10*d, 5, false))
	}
	s.AddTask(task(9, "1", 2000, 2900, 0, 1, true)) // failed: not in quantiles
	res := analyze.Analyze(a)
	r := Build(a, res, diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All), Log{Path: "x"})

	if r.App.Master != "yarn" || r.App.DurationMs != 4000 || r.App.EndTime == nil || *r.App.EndTime != 5000 {
		t.Errorf("got app %+v, want master yarn, duration 4000, end 5000", r.App)
	}
	st := r.Stages[0]
	if st.DurationMs != 600 || st.TaskDurationMs != (Quantiles{P50: 200, P95: 500, Max: 500}) {
		t.Errorf("got stage duration %d quantiles %+v, want 600 and p50 200 p95 500 max 500", st.DurationMs, st.TaskDurationMs)
	}
	if st.Skew.DurationMaxOverMedian != 2.5 || st.Skew.BytesMaxOverMedian != 2.5 {
		t.Errorf("got skew %+v, want 2.5 and 2.5", st.Skew)
	}
	x := r.Executors[0]
	if x.TaskTimeMs != 1800 || x.GCTimeMs != 21 || x.PeakJVMHeapBytes != 1<<30 || x.RemovedTime != nil {
		t.Errorf("got executor %+v, want task time 1800, gc 21, heap 1 GiB, not removed", x)
	}

	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "log", "app", "phases", "stages", "executors", "findings"} {
		if _, ok := back[k]; !ok {
			t.Errorf("got no %q key in the JSON report", k)
		}
	}
}

// TestBuildIncompleteDuration: an attempt without its end event lasts, in
// the JSON as in the text report and serve, until its last event (it
// said 0 while every other view said the time to the last event).
func TestBuildIncompleteDuration(t *testing.T) {
	a := model.NewAttempt()
	a.AppID, a.StartTime = "app-2", 1000
	a.AddExecutor("1", 1100).TotalCores = 2
	s, _ := a.StageOrNew(0, 0)
	s.Name, s.Status, s.NumTasks, s.SubmissionTime = "map", model.StageActive, 2, 2000
	s.AddTask(task(0, "1", 2000, 7500, 0, 0, false))
	res := analyze.Analyze(a)
	r := Build(a, res, nil, Log{Path: "x"})
	if r.App.Completed || r.App.EndTime != nil || r.App.DurationMs != 6500 || r.App.DurationMs != res.DurationMs {
		t.Errorf("got app %+v, analysis %d ms; want incomplete, no end, 6500 ms (to the last task's end)", r.App, res.DurationMs)
	}
}

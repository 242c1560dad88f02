package analyze

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestTimeline builds an attempt whose phases are known to the second:
// executor 1 lives 10–40 s, executor 2 from 60 s; stage 0 computes 12–30 s,
// stage 1 is submitted at 45 s with no executor until 60 s and ends at
// 70 s; stage 2 writes 75–85 s and its SQL command commits until 95 s.
func TestTimeline(t *testing.T) {
	const s = int64(1000)
	a := model.NewAttempt()
	a.StartTime, a.EndTime, a.Completed = 0, 100*s, true
	e1 := a.AddExecutor("1", 10*s)
	e1.TotalCores, e1.RemoveTime = 4, 40*s
	a.AddExecutor("2", 60*s).TotalCores = 4
	stage := func(id int, from, to int64) *model.StageAttempt {
		st, _ := a.StageOrNew(id, 0)
		st.SubmissionTime, st.CompletionTime, st.Status = from, to, model.StageComplete
		return st
	}
	stage(0, 12*s, 30*s)
	stage(1, 45*s, 70*s)
	w := stage(2, 75*s, 85*s)
	w.Metrics.OutputBytesWritten = 1 << 30
	w.JobIDs = []int{0}
	a.AddJob(&model.Job{ID: 0, StageIDs: []int{2}, SQLExecutionID: 1, SubmissionTime: 74 * s, CompletionTime: 86 * s})
	a.AddSQLExecution(&model.SQLExecution{ID: 1, StartTime: 74 * s, EndTime: 95 * s,
		Plan: &model.SQLPlanNode{NodeName: "Execute InsertIntoHadoopFsRelationCommand"}})

	r := Analyze(a)
	want := Phases{ResourceWaitMs: 25 * s, ComputeMs: 28 * s, OutputWriteMs: 20 * s, DriverOnlyMs: 27 * s,
		FirstExecutorDelayMs: 10 * s}
	if r.Phases != want {
		t.Errorf("got %+v, want %+v", r.Phases, want)
	}
	wantIvs := []Interval{{0, 10 * s, PhaseResourceWait}, {10 * s, 12 * s, PhaseDriverOnly}, {12 * s, 30 * s, PhaseCompute},
		{30 * s, 45 * s, PhaseDriverOnly}, {45 * s, 60 * s, PhaseResourceWait}, {60 * s, 70 * s, PhaseCompute},
		{70 * s, 75 * s, PhaseDriverOnly}, {75 * s, 95 * s, PhaseOutputWrite}, {95 * s, 100 * s, PhaseDriverOnly}}
	if len(r.Timeline) != len(wantIvs) {
		t.Fatalf("got timeline %v, want %v", r.Timeline, wantIvs)
	}
	for i := range wantIvs {
		if r.Timeline[i] != wantIvs[i] {
			t.Errorf("interval %d: got %v, want %v", i, r.Timeline[i], wantIvs[i])
		}
	}
	if got := r.Phases.Ratio(PhaseOutputWrite); got != 0.2 {
		t.Errorf("got write ratio %v, want 0.2", got)
	}
	if r.CriticalPath.MaxExecutors != 1 || r.CriticalPath.MaxCores != 4 {
		t.Errorf("got %d executors, %d cores at most; want 1 and 4", r.CriticalPath.MaxExecutors, r.CriticalPath.MaxCores)
	}
}

// stageMaker makes stages of a with parents and tasks of durations durs,
// all launched at 1.
func stageMaker(a *model.Attempt) func(id int, parents []int, durs ...int64) *model.StageAttempt {
	return func(id int, parents []int, durs ...int64) *model.StageAttempt {
		st, _ := a.StageOrNew(id, 0)
		st.ParentIDs = parents
		for i, d := range durs {
			st.AddTask(&model.Task{TaskID: int64(id*100 + i), Index: int32(i), LaunchTime: 1, FinishTime: 1 + d})
		}
		return st
	}
}

// TestSimulate checks the what-if scheduler on known task sets.
func TestSimulate(t *testing.T) {
	mk := stageMaker(model.NewAttempt())
	// stage 0: 4 tasks of 10; stage 1 (after 0): tasks 30, 10, 10.
	g := &jobGroup{stages: []*model.StageAttempt{mk(0, nil, 10, 10, 10, 10), mk(1, []int{0}, 30, 10, 10)}}
	for _, c := range []struct {
		cores int
		want  int64
	}{{1, 40 + 50}, {2, 20 + 30}, {4, 10 + 30}, {100, 10 + 30}} {
		if got := simulate([]*jobGroup{g}, 5, c.cores, 1, coldStart([]*jobGroup{g})); got != 5+c.want {
			t.Errorf("%d cores: got %d ms, want %d", c.cores, got, 5+c.want)
		}
	}
	cp := criticalPath([]*jobGroup{g}, 100, 2, coldStart([]*jobGroup{g}))
	if cp.CriticalPathMs != cp.DriverMs+40 || cp.IdealMs != cp.DriverMs+45 || cp.TaskTimeMs != 90 {
		t.Errorf("got %+v, want critical path driver+40, ideal driver+45, task time 90", cp)
	}
}

// TestNoExecutorIsResourceWait: an application on a cluster that never
// got an executor waited for resources the whole time (its driver runs no
// task); in local mode the driver is the capacity.
func TestNoExecutorIsResourceWait(t *testing.T) {
	const s, hour = int64(1000), int64(3600_000)
	for _, c := range []struct {
		master   string
		wantWait int64
	}{
		{"k8s://https://kube:6443", hour},
		{"spark://master:7077", hour},
		{"yarn", hour},
		{"local[4]", 0},
		{"", 0}, // a log that does not say: as local
	} {
		a := model.NewAttempt()
		a.StartTime, a.EndTime, a.Completed = 0, hour, true
		if c.master != "" {
			a.Env.SparkProperties = [][2]string{{"spark.master", c.master}}
		}
		a.AddExecutor("driver", 0).TotalCores = 4
		st, _ := a.StageOrNew(0, 0)
		st.SubmissionTime, st.Status = 20*s, model.StageActive
		st.CompletionTime = model.NoTime
		r := Analyze(a)
		if r.Phases.ResourceWaitMs != c.wantWait {
			t.Errorf("master %q: resource wait %d ms, want %d (phases %+v)", c.master, r.Phases.ResourceWaitMs, c.wantWait, r.Phases)
		}
	}
}

// TestAnalyzeAtRunsToNow: a running application's last state goes on until
// now — a wait for executors (the driver writes nothing while it waits)
// grows with the clock, and a stage whose tasks run keeps computing — while
// the same attempt without a now, or finished, stops at its last event.
func TestAnalyzeAtRunsToNow(t *testing.T) {
	const s = int64(1000)
	waiting := func() *model.Attempt {
		a := model.NewAttempt()
		a.StartTime, a.EndTime = 0, model.NoTime
		a.Env.SparkProperties = [][2]string{{"spark.master", "spark://master:7077"}}
		a.AddExecutor("driver", 0).TotalCores = 4
		st, _ := a.StageOrNew(0, 0)
		st.SubmissionTime, st.Status, st.CompletionTime = 2*s, model.StageActive, model.NoTime
		return a
	}
	r := AnalyzeAt(waiting(), 400*s)
	if !r.Running || r.DurationMs != 400*s || r.Phases.ResourceWaitMs != 400*s {
		t.Errorf("waiting at 400 s: running %v, duration %d, resource wait %d; want true, 400 s, 400 s", r.Running, r.DurationMs, r.Phases.ResourceWaitMs)
	}
	if r := Analyze(waiting()); r.Running || r.DurationMs != 2*s || r.Phases.ResourceWaitMs != 2*s {
		t.Errorf("waiting without now: running %v, duration %d, wait %d; want false, 2 s, 2 s", r.Running, r.DurationMs, r.Phases.ResourceWaitMs)
	}
	finished := waiting()
	finished.EndTime, finished.Completed = 3*s, true
	if r := AnalyzeAt(finished, 400*s); r.Running || r.DurationMs != 3*s {
		t.Errorf("finished: running %v, duration %d; want false, 3 s", r.Running, r.DurationMs)
	}

	// An executor came at 10 s and runs a task: compute from then to now.
	a := waiting()
	e := a.AddExecutor("1", 10*s)
	e.TotalCores = 4
	st := a.Stage(0, 0)
	st.Tasks = append(st.Tasks, &model.Task{TaskID: 1, ExecutorID: "1", LaunchTime: 11 * s})
	r = AnalyzeAt(a, 100*s)
	if r.Phases.ResourceWaitMs+r.Phases.ComputeMs+r.Phases.OutputWriteMs+r.Phases.DriverOnlyMs != 100*s || r.Phases.ComputeMs < 89*s {
		t.Errorf("computing at 100 s: phases %+v; want them to cover 100 s, computing from 10-11 s on", r.Phases)
	}
}

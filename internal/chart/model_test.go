package chart

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

// TestStages: attempts with a submission time, in submission order (ties
// in the analysis's order), ending at completion or, running, at the
// application's end.
func TestStages(t *testing.T) {
	r := &analyze.Result{StartTime: 1000, EndTime: 9000, Stages: []analyze.Stage{
		{StageID: 0, SubmissionTime: 3000, CompletionTime: 4000, Status: model.StageComplete},
		{StageID: 1, SubmissionTime: model.NoTime, CompletionTime: model.NoTime, Status: model.StageSkipped},
		{StageID: 2, SubmissionTime: 2000, CompletionTime: model.NoTime, Status: model.StageActive},
		{StageID: 3, SubmissionTime: 3000, CompletionTime: 5000, Status: model.StageFailed},
		{StageID: 4, SubmissionTime: 0, CompletionTime: 0, Status: model.StagePending, FirstLaunchTime: model.NoTime},
		// Spark 1.x: a running stage's submission time is written only
		// when it completes; its bar starts at its first task's launch.
		{StageID: 5, SubmissionTime: model.NoTime, CompletionTime: model.NoTime, FirstLaunchTime: 6000, Status: model.StageActive},
	}}
	var got []string
	for _, b := range Stages(r) {
		got = append(got, fmt.Sprintf("%d %d-%d running=%v", b.Stage.StageID, b.Start, b.End, b.Running))
	}
	want := []string{"2 2000-9000 running=true", "0 3000-4000 running=false", "3 3000-5000 running=false", "5 6000-9000 running=true"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// task is a finished (or, with finish 0, running) task attempt on exec.
func task(exec string, launch, finish int64, failed bool) *model.Task {
	return &model.Task{ExecutorID: exec, LaunchTime: launch, FinishTime: finish, Failed: failed}
}

func attemptWith(execs map[string]int, order []string, tasks ...*model.Task) *model.Attempt {
	a := model.NewAttempt()
	for _, id := range order {
		a.AddExecutor(id, 1).TotalCores = execs[id]
	}
	s, _ := a.StageOrNew(0, 0)
	s.Tasks = tasks
	return a
}

// TestSlotBusy: each task's time split over the buckets it overlaps, a
// running one to the end; rows in numeric executor order; the busy share
// against the executor's cores, 1 slot when unknown, at most 1.
func TestSlotBusy(t *testing.T) {
	a := attemptWith(map[string]int{"10": 2, "2": 0}, []string{"10", "2"},
		task("10", 100, 250, false), // buckets 1 and 2
		task("10", 100, 200, true),  // bucket 1, failed attempts take a slot too
		task("2", 350, 0, false),    // running: to the end
		task("9", 0, 50, false),     // never launched: not drawn
	)
	rows := SlotBusy(a, 0, 400, 4)
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s/%d %v", r.ExecutorID, r.Slots, r.BusyMs))
	}
	want := []string{"2/1 [0 0 0 50]", "10/2 [0 200 50 0]"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, tc := range []struct {
		row, bucket int
		want        float64
	}{{1, 1, 1}, {1, 2, 0.25}, {0, 3, 0.5}, {0, 0, 0}} {
		if got := rows[tc.row].Busy(tc.bucket, 100); got != tc.want {
			t.Errorf("row %d bucket %d: got busy %v, want %v", tc.row, tc.bucket, got, tc.want)
		}
	}
}

// TestDurations: finished attempts per executor and duration column,
// failed ones in the last; rows in the model's executor order, then the
// others by id.
func TestDurations(t *testing.T) {
	a := attemptWith(map[string]int{}, []string{"3", "1"},
		task("1", 0, 5, false),       // <10ms
		task("1", 0, 50_000, false),  // 10s–1m
		task("1", 0, 5, true),        // failed
		task("3", 0, 0, false),       // running: not counted
		task("driver", 0, 10, false), // 10–100ms, on an executor the model does not list
		task("0", 0, 1<<62, false),   // ≥1h
	)
	var got []string
	for _, r := range Durations(a) {
		got = append(got, fmt.Sprintf("%s %v %d", r.ExecutorID, r.Counts, r.Total))
	}
	want := []string{"1 [1 0 0 0 1 0 0 0 1] 3", "0 [0 0 0 0 0 0 0 1 0] 1", "driver [0 1 0 0 0 0 0 0 0] 1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

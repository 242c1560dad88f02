package model

import (
	"math"
	"testing"
	"unsafe"
)

// TestSparseMetricsRoundTrip: every metric set alone, all set, none set and
// the int64 bounds come back as they went in.
func TestSparseMetricsRoundTrip(t *testing.T) {
	cases := map[string]TaskMetrics{"none": {}}
	var all TaskMetrics
	for i, p := range all.fields() {
		var one TaskMetrics
		*one.fields()[i] = int64(i+1) * 1_000_003
		cases["field "+string(rune('A'+i))] = one
		*p = math.MaxInt64 - int64(i)
	}
	cases["all"] = all
	bounds := TaskMetrics{ExecutorCpuTime: math.MinInt64, ShuffleWrite: ShuffleWriteMetrics{WriteTime: math.MaxInt64}}
	cases["bounds"] = bounds
	for name, m := range cases {
		var k Task
		k.SetMetrics(&m)
		if got := k.Metrics(); got != m || !k.HasMetrics {
			t.Errorf("%s: got %+v (has %v), want %+v", name, got, k.HasMetrics, m)
		}
	}
	// From a slab, each task's values are its own: setting the next
	// task's metrics leaves the previous task's as they were.
	var slab MetricSlab
	tasks := make([]Task, slabBlock) // past one block
	for i := range tasks {
		tasks[i].SetMetricsIn(&TaskMetrics{ExecutorRunTime: int64(i + 1), JvmGcTime: int64(i % 3)}, &slab)
	}
	for i := range tasks {
		want := TaskMetrics{ExecutorRunTime: int64(i + 1), JvmGcTime: int64(i % 3)}
		if got := tasks[i].Metrics(); got != want {
			t.Fatalf("task %d from a slab: got %+v, want %+v", i, got, want)
		}
	}
	var k Task
	k.SetMetrics(&TaskMetrics{})
	if k.metrics.vals != nil {
		t.Errorf("all zero: got %d values stored, want none", len(k.metrics.vals))
	}
}

// TestTaskSize keeps a Task as small as issue 37 made it: a one-shot
// replay holds every task of the log (337,662 in the 1 GB log).
func TestTaskSize(t *testing.T) {
	if got := unsafe.Sizeof(Task{}); got > 144 {
		t.Errorf("got a Task of %d bytes, want at most 144 (496 with inline metrics)", got)
	}
}

// TestTaskExtraOnlyWhenPresent: a task without accumulables, error text,
// failure or peaks allocates no TaskExtra.
func TestTaskExtraOnlyWhenPresent(t *testing.T) {
	var k Task
	k.SetAccumulables(nil)
	k.SetFailure(nil, nil)
	k.SetExecMetrics(nil)
	if k.Extra != nil {
		t.Errorf("got %+v, want no TaskExtra", k.Extra)
	}
	if k.Accumulables() != nil || k.ErrorMessage() != "" || k.HasErrorMessage() || k.Loss() != nil || k.Fetch() != nil || k.ExecMetrics() != nil {
		t.Error("a task without extras reports some")
	}
	k.SetErrorMessage("")
	if k.Extra == nil || !k.HasErrorMessage() {
		t.Error("an empty error text is still present (Spark's null and \"\" differ)")
	}
}

// TestStageTaskByID: lookups by id without an index map, duplicates
// answered by the last added as before.
func TestStageTaskByID(t *testing.T) {
	s := &StageAttempt{}
	a, b, c, dup := &Task{TaskID: 5}, &Task{TaskID: 1}, &Task{TaskID: 9}, &Task{TaskID: 5, Attempt: 1}
	for _, x := range []*Task{a, b, c, dup} {
		s.AddTask(x)
	}
	for _, tc := range []struct {
		id   int64
		want *Task
	}{{1, b}, {5, dup}, {9, c}, {0, nil}, {7, nil}, {10, nil}} {
		if got := s.Task(tc.id); got != tc.want {
			t.Errorf("task %d: got %+v, want %+v", tc.id, got, tc.want)
		}
	}
}

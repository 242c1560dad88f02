package model

import (
	"math"
	"testing"
)

// TestTaskMetricReadsEachField: Metric(f) is the field Metrics() expands
// for every metric, with one, some or all of them set, and the bounds.
func TestTaskMetricReadsEachField(t *testing.T) {
	cases := map[string]TaskMetrics{"none": {}}
	var all, some TaskMetrics
	for i, p := range all.fields() {
		var one TaskMetrics
		*one.fields()[i] = int64(i+1) * 1_000_003
		cases["only field "+string(rune('A'+i))] = one
		*p = math.MaxInt64 - int64(i)
		if i%3 == 1 {
			*some.fields()[i] = -int64(i + 1)
		}
	}
	cases["all"], cases["every third"] = all, some
	cases["bounds"] = TaskMetrics{ExecutorCpuTime: math.MinInt64, ShuffleWrite: ShuffleWriteMetrics{RecordsWritten: math.MaxInt64}}
	for name, m := range cases {
		var k Task
		k.SetMetrics(&m)
		want := k.Metrics()
		for f, p := range want.fields() {
			if got := k.Metric(TaskMetric(f)); got != *p {
				t.Errorf("%s: Metric(%d) got %d, want %d", name, f, got, *p)
			}
		}
		if got := k.ShuffleReadBytes(); got != want.ShuffleReadBytes() {
			t.Errorf("%s: ShuffleReadBytes got %d, want %d", name, got, want.ShuffleReadBytes())
		}
		if got := k.Metric(numTaskMetrics); got != 0 {
			t.Errorf("%s: Metric past the last got %d, want 0", name, got)
		}
	}
	var none Task // no metrics at all
	if got := none.Metric(TMExecutorRunTime); got != 0 {
		t.Errorf("a task without metrics: got %d, want 0", got)
	}
}

// TestTaskMetricNamesMatchFields: each constant names the field it reads
// (a field set alone is read back through its constant only).
func TestTaskMetricNamesMatchFields(t *testing.T) {
	byName := map[TaskMetric]func(*TaskMetrics) *int64{
		TMExecutorDeserializeTime: func(m *TaskMetrics) *int64 { return &m.ExecutorDeserializeTime },
		TMExecutorRunTime:         func(m *TaskMetrics) *int64 { return &m.ExecutorRunTime },
		TMJvmGcTime:               func(m *TaskMetrics) *int64 { return &m.JvmGcTime },
		TMResultSerializationTime: func(m *TaskMetrics) *int64 { return &m.ResultSerializationTime },
		TMPeakExecutionMemory:     func(m *TaskMetrics) *int64 { return &m.PeakExecutionMemory },
		TMInputBytesRead:          func(m *TaskMetrics) *int64 { return &m.InputBytesRead },
		TMInputRecordsRead:        func(m *TaskMetrics) *int64 { return &m.InputRecordsRead },
		TMShuffleRemoteBytesRead:  func(m *TaskMetrics) *int64 { return &m.ShuffleRead.RemoteBytesRead },
		TMShuffleLocalBytesRead:   func(m *TaskMetrics) *int64 { return &m.ShuffleRead.LocalBytesRead },
		TMShuffleRecordsRead:      func(m *TaskMetrics) *int64 { return &m.ShuffleRead.RecordsRead },
		TMShuffleRecordsWritten:   func(m *TaskMetrics) *int64 { return &m.ShuffleWrite.RecordsWritten },
	}
	for f, of := range byName {
		var m TaskMetrics
		*of(&m) = 42
		var k Task
		k.SetMetrics(&m)
		for g := range TaskMetric(numTaskMetrics) {
			want := int64(0)
			if g == f {
				want = 42
			}
			if got := k.Metric(g); got != want {
				t.Errorf("field %d set alone: Metric(%d) got %d, want %d", f, g, got, want)
			}
		}
	}
}

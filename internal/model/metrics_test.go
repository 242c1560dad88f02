package model

import "testing"

func TestExecutorMetricIndex(t *testing.T) {
	for i, n := range ExecutorMetricNames() {
		if got := ExecutorMetricIndex(n); got != i {
			t.Errorf("ExecutorMetricIndex(%q): got %d, want %d", n, got, i)
		}
	}
	if got := ExecutorMetricIndex("NoSuchMetric"); got != -1 {
		t.Errorf("got %d for an unknown name, want -1", got)
	}
}

func TestUpdatePeaks(t *testing.T) {
	var m ExecutorMetrics
	zero := ExecutorMetrics{Set: true}
	m.UpdatePeaks(&ExecutorMetrics{})
	if m.Set {
		t.Error("got Set after an unset update, want unset")
	}
	m.UpdatePeaks(&zero)
	if !m.Set {
		t.Error("got unset after an all-zero update, want Set (as Spark's isSet)")
	}
	a := ExecutorMetrics{Set: true}
	a.Values[MetricJVMHeapMemory] = 5
	b := ExecutorMetrics{Set: true}
	b.Values[MetricJVMHeapMemory] = 3
	b.Values[MetricTotalGCTime] = 9
	m.UpdatePeaks(&a)
	m.UpdatePeaks(&b)
	if m.Values[MetricJVMHeapMemory] != 5 || m.Values[MetricTotalGCTime] != 9 {
		t.Errorf("got heap %d gc %d, want 5 9", m.Values[MetricJVMHeapMemory], m.Values[MetricTotalGCTime])
	}
}

func TestTaskMetricsAdd(t *testing.T) {
	a := TaskMetrics{ExecutorRunTime: 10, ShuffleRead: ShuffleReadMetrics{LocalBytesRead: 3, RemoteBytesRead: 4,
		Push: ShufflePushReadMetrics{RemoteMergedBytesRead: 2}}, ShuffleWrite: ShuffleWriteMetrics{BytesWritten: 7}}
	var s TaskMetrics
	s.Add(&a, 1)
	s.Add(&a, 1)
	if s.ExecutorRunTime != 20 || s.ShuffleReadBytes() != 14 || s.ShuffleRead.Push.RemoteMergedBytesRead != 4 || s.ShuffleWrite.BytesWritten != 14 {
		t.Errorf("got %+v after adding twice", s)
	}
	s.Add(&a, -1)
	if s != a {
		t.Errorf("got %+v after subtracting, want %+v", s, a)
	}
}

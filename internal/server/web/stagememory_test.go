package web

import (
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/store"
)

// TestStageMemory: the peaks are those of the samples inside the stage's
// window only, on- and off-heap execution memory summed per sample time,
// the executors the stage did not run on left out, and GC time the growth
// of the cumulative series from the last sample before the stage.
func TestStageMemory(t *testing.T) {
	s := func(exec, metric string, at int64, v float64) store.Sample {
		return store.Sample{AppID: "app", ExecutorID: exec, Metric: metric, Time: at, Value: v}
	}
	const (
		heap = "jvm.memory.used{heap}"
		on   = "spark.executor.memory.usage{OnHeapExecutionMemory}"
		off  = "spark.executor.memory.usage{OffHeapExecutionMemory}"
		gc   = "jvm.gc.duration"
		rss  = "spark.executor.memory.usage{ProcessTreeJVMRSSMemory}"
	)
	samples := []store.Sample{
		s("1", heap, 900, 999e6), // before the stage
		s("1", heap, 1000, 100e6), s("1", heap, 2000, 300e6), s("1", heap, 3000, 200e6),
		s("1", heap, 3100, 888e6), // after it
		s("1", on, 2000, 10e6), s("1", off, 2000, 5e6), s("1", on, 3000, 12e6), s("1", off, 3000, 0),
		s("1", rss, 2000, 700e6),
		s("1", gc, 500, 1.0), s("1", gc, 2000, 1.5), s("1", gc, 3000, 2.25), s("1", gc, 4000, 9),
		s("2", heap, 2000, 50e6), // executor 2 did not run the stage
		s("3", heap, 100, 10e6),  // executor 3 ran it, sampled only before
	}
	got := stageMemory(samples, 1000, 3000, []string{"1", "3"})
	want := []StageMemory{{ID: "1", Samples: 3, Heap: 300e6, Execution: 15e6, RSS: 700e6, GCMs: 1250}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stageMemory =\n %+v\nwant\n %+v", got, want)
	}
	// Running (end -1): every sample from the submission on.
	got = stageMemory(samples, 1000, -1, []string{"1"})
	if len(got) != 1 || got[0].Heap != 888e6 || got[0].GCMs != 8000 {
		t.Errorf("running stage: %+v, want heap 888 MB and 8 s of GC", got)
	}
	if got := stageMemory(samples, 5000, 6000, []string{"1"}); len(got) != 0 {
		t.Errorf("a window with no sample: %+v, want no row", got)
	}
}

package sinks

import (
	"fmt"
	"testing"
)

func TestMapPoint(t *testing.T) {
	for _, c := range []struct {
		source, metric string
		value          float64
		want           string // family's OTLP name, its attrs and value; "" for not mapped
	}{
		{"jvm", "pools.G1-Old-Gen.used", 7, "jvm.memory.used [G1 Old Gen heap] 7"},
		{"jvm", "pools.G1-Eden-Space.committed", 8, "jvm.memory.committed [G1 Eden Space heap] 8"},
		{"jvm", "pools.CodeHeap-'non-nmethods'.used", 9, "jvm.memory.used [CodeHeap 'non-nmethods' non_heap] 9"},
		{"jvm", "pools.Code-Cache.max", 10, "jvm.memory.limit [Code Cache non_heap] 10"},
		{"jvm", "pools.Metaspace.max", -1, ""}, // no maximum
		{"jvm", "pools.Metaspace.usage", 0.5, ""},
		{"jvm", "pools.Made-Up-Old-Pool.used", 1, "jvm.memory.used [Made-Up-Old-Pool heap] 1"},
		{"jvm", "pools.Made-Up-Pool.used", 1, "jvm.memory.used [Made-Up-Pool non_heap] 1"},
		{"jvm", "heap.used", 100, ""}, // the heap pools, summed
		{"jvm", "non-heap.used", 100, ""},
		{"jvm", "total.used", 100, ""},
		{"jvm", "G1-Young-Generation.count", 4, "jvm.gc.count [G1 Young Generation end of minor GC] 4"},
		{"jvm", "G1-Old-Generation.time", 1500, "jvm.gc.duration [G1 Old Generation end of major GC] 1.5"},
		{"jvm", "G1-Concurrent-GC.count", 2, "jvm.gc.count [G1 Concurrent GC end of concurrent GC] 2"},
		{"jvm", "PS-MarkSweep.count", 1, "jvm.gc.count [PS MarkSweep end of major GC] 1"},
		{"jvm", "PS-Scavenge.time", 20, "jvm.gc.duration [PS Scavenge end of minor GC] 0.02"},
		{"jvm", "direct.used", 4096, "jvm.buffer.memory.used [direct ] 4096"},
		{"jvm", "mapped.capacity", 0, "jvm.buffer.memory.limit [mapped ] 0"},
		{"jvm", "direct.count", 3, "jvm.buffer.count [direct ] 3"},
		{"jvm", "direct.other", 3, ""},
		{"ExecutorMetrics", "OnHeapExecutionMemory", 65536, "spark.executor.memory.usage [OnHeapExecutionMemory ] 65536"},
		{"ExecutorMetrics", "ProcessTreeJVMRSSMemory", 1e8, "spark.executor.memory.usage [ProcessTreeJVMRSSMemory ] 1e+08"},
		{"ExecutorMetrics", "MajorGCTime", 250, "spark.executor.gc.duration [major ] 0.25"},
		{"ExecutorMetrics", "MinorGCCount", 5, "spark.executor.gc.count [minor ] 5"},
		{"ExecutorMetrics", "TotalGCTime", 1000, "spark.executor.gc.duration [total ] 1"},
		{"ExecutorMetrics", "SomethingNew", 1, ""},
		{"executor", "cpuTime.count", 2e9, "spark.executor.cpu.time [ ] 2"}, // GraphiteSink's counter
		{"executor", "cpuTime", 2e9, "spark.executor.cpu.time [ ] 2"},       // StatsdSink's
		{"executor", "threadpool.activeTasks", 2, "spark.executor.tasks.active [ ] 2"},
		{"executor", "jvmGCTime.count", 300, "spark.executor.task.gc.time [ ] 0.3"},
		{"executor", "filesystem.file.read_bytes", 1, ""},
		{"BlockManager", "memory.memUsed_MB", 1, ""},
	} {
		t.Run(c.source+"."+c.metric, func(t *testing.T) {
			m, ok := mapPoint(Point{Source: c.source, Metric: c.metric, Value: c.value})
			got := ""
			if ok {
				got = fmt.Sprintf("%s %v %v", families[m.fam].otlp, m.attrs, m.value)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestFamilies: each family's attributes have a Prometheus label each,
// and no two families share a name.
func TestFamilies(t *testing.T) {
	seen := map[string]bool{}
	for i, f := range families {
		if len(f.attrs) != len(f.labels) || len(f.attrs) > 2 {
			t.Errorf("family %d %s: %d attributes, %d labels", i, f.otlp, len(f.attrs), len(f.labels))
		}
		if f.otlp == "" || f.prom == "" || seen[f.otlp] || seen[f.prom] {
			t.Errorf("family %d: name %q/%q missing or repeated", i, f.otlp, f.prom)
		}
		seen[f.otlp], seen[f.prom] = true, true
	}
}

package web

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/server/store"
)

// StageMemory is one executor's memory while a stage ran, from the
// samples an agent or Spark's own metric sinks sent: the highest value of
// each series taken between the stage's submission and its end, and the
// GC time the executor spent in that window. A zero peak is a series with
// no sample in the window (or one that stayed at zero).
type StageMemory struct {
	ID                 string
	Samples            int   // sample times of the executor in the window
	Heap, NonHeap      int64 // JVM heap and non-heap used, pools summed
	Execution, Storage int64 // Spark's execution and storage memory in use, on- and off-heap
	Direct             int64 // direct buffers in use
	RSS                int64 // the JVM process's resident memory (agent) or process tree's (Spark)
	GCMs               int64 // GC time during the window; -1 when fewer than two GC samples
}

// stageMemorySeries are the sample series a StageMemory row reads, by the
// field each one's peak goes to.
var stageMemorySeries = map[string]func(*StageMemory) *int64{
	"jvm.memory.used{heap}":                                func(m *StageMemory) *int64 { return &m.Heap },
	"jvm.memory.used{non_heap}":                            func(m *StageMemory) *int64 { return &m.NonHeap },
	"spark.executor.memory.usage{OnHeapExecutionMemory}":   func(m *StageMemory) *int64 { return &m.Execution },
	"spark.executor.memory.usage{OffHeapExecutionMemory}":  func(m *StageMemory) *int64 { return &m.Execution },
	"spark.executor.memory.usage{OnHeapStorageMemory}":     func(m *StageMemory) *int64 { return &m.Storage },
	"spark.executor.memory.usage{OffHeapStorageMemory}":    func(m *StageMemory) *int64 { return &m.Storage },
	"jvm.buffer.memory.used{direct}":                       func(m *StageMemory) *int64 { return &m.Direct },
	"process.memory.usage":                                 func(m *StageMemory) *int64 { return &m.RSS },
	"spark.executor.memory.usage{ProcessTreeJVMRSSMemory}": func(m *StageMemory) *int64 { return &m.RSS },
}

// stageMemory joins samples to a stage: for each executor that ran its
// tasks (execs), the peaks of the series above among its samples taken
// from start to end (epoch ms; end < 0 for a stage still running). The
// on- and off-heap execution (and storage) memory are summed per sample
// time before the peak, as Spark's unified memory is their sum. Executors
// with no sample in the window are left out: a stage shorter than the
// sampling period may have none.
func stageMemory(samples []store.Sample, start, end int64, execs []string) []StageMemory {
	want := map[string]bool{}
	for _, e := range execs {
		want[e] = true
	}
	in := func(t int64) bool { return t >= start && (end < 0 || t <= end) }
	type key struct {
		exec string
		time int64
	}
	sums := map[key]*StageMemory{} // one per executor and sample time
	gc := map[string][]store.Sample{}
	for _, s := range samples {
		if !want[s.ExecutorID] {
			continue
		}
		if s.Metric == "jvm.gc.duration" {
			gc[s.ExecutorID] = append(gc[s.ExecutorID], s)
			continue
		}
		field, ok := stageMemorySeries[s.Metric]
		if !ok || !in(s.Time) {
			continue
		}
		k := key{s.ExecutorID, s.Time}
		m := sums[k]
		if m == nil {
			m = &StageMemory{ID: s.ExecutorID}
			sums[k] = m
		}
		f := field(m)
		if s.Metric == "process.memory.usage" || s.Metric == "spark.executor.memory.usage{ProcessTreeJVMRSSMemory}" {
			*f = max(*f, int64(s.Value)) // the agent's and Spark's view of one process: not a sum
		} else {
			*f += int64(s.Value)
		}
	}
	peaks := map[string]*StageMemory{}
	for k, m := range sums {
		p := peaks[k.exec]
		if p == nil {
			p = &StageMemory{ID: k.exec, GCMs: -1}
			peaks[k.exec] = p
		}
		p.Samples++
		p.Heap, p.NonHeap = max(p.Heap, m.Heap), max(p.NonHeap, m.NonHeap)
		p.Execution, p.Storage = max(p.Execution, m.Execution), max(p.Storage, m.Storage)
		p.Direct, p.RSS = max(p.Direct, m.Direct), max(p.RSS, m.RSS)
	}
	var out []StageMemory
	for id, p := range peaks {
		p.GCMs = gcDuring(gc[id], start, end)
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// gcDuring is the growth of a cumulative GC time series (seconds) over the
// window: from its last sample at or before start (else its first in the
// window) to its last at or before end, in ms; -1 without two such samples.
func gcDuring(xs []store.Sample, start, end int64) int64 {
	sort.Slice(xs, func(i, j int) bool { return xs[i].Time < xs[j].Time })
	from, to := -1, -1
	for i, s := range xs {
		if s.Time <= start || from < 0 {
			from = i
		}
		if end < 0 || s.Time <= end {
			to = i
		}
	}
	if from < 0 || to <= from {
		return -1
	}
	return int64((xs[to].Value - xs[from].Value) * 1000)
}

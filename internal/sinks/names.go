package sinks

import (
	"strings"
)

// family is one metric the sinks emit: its OTLP name — the one a sparkdx
// agent uses where the agent has it, so serve's samples, Delta rows and
// charts read both the same — and its Prometheus rendering.
type family struct {
	otlp, unit, desc string
	prom             string
	counter          bool     // cumulative since the JVM started: an OTLP monotonic sum, a Prometheus counter
	attrs            []string // OTLP attribute keys of its points, in order
	labels           []string // their Prometheus label names
}

// The families, by index into families.
const (
	famMemUsed = iota
	famMemCommitted
	famMemLimit
	famGCCount
	famGCDuration
	famBufUsed
	famBufLimit
	famBufCount
	famSparkMem
	famSparkGCCount
	famSparkGCDuration
	famTasksActive
	famTasksCompleted
	famCPUTime
	famRunTime
	famTaskGC
	famSpilledMemory
	famSpilledDisk
	numFamilies
)

var (
	poolAttrs   = []string{"jvm.memory.pool.name", "jvm.memory.type"}
	poolLabels  = []string{"pool", "type"}
	gcAttrs     = []string{"jvm.gc.name", "jvm.gc.action"}
	gcLabels    = []string{"gc", "action"}
	bufAttrs    = []string{"jvm.buffer.pool.name"}
	poolLabel   = []string{"pool"}
	kindAttrs   = []string{"spark.memory.kind"}
	kindLabel   = []string{"kind"}
	gcKindAttrs = []string{"spark.gc.kind"}
)

// families is a constant table (never written): JvmSource's pools, GC and
// buffer pools; the ExecutorMetrics source's current values (the peaks of
// which the agent reads from the driver's REST API); a few of the executor
// source's task counters.
var families = [numFamilies]family{
	famMemUsed:      {"jvm.memory.used", "By", "Measure of memory used, by pool (Spark's JvmSource).", "jvm_memory_used_bytes", false, poolAttrs, poolLabels},
	famMemCommitted: {"jvm.memory.committed", "By", "Measure of memory committed, by pool (Spark's JvmSource).", "jvm_memory_committed_bytes", false, poolAttrs, poolLabels},
	famMemLimit:     {"jvm.memory.limit", "By", "Measure of max obtainable memory, by pool (Spark's JvmSource).", "jvm_memory_limit_bytes", false, poolAttrs, poolLabels},
	famGCCount:      {"jvm.gc.count", "{collection}", "Garbage collections since JVM start, by collector (Spark's JvmSource).", "jvm_gc_collections_total", true, gcAttrs, gcLabels},
	famGCDuration:   {"jvm.gc.duration", "s", "Cumulative time spent in garbage collection, by collector (Spark's JvmSource).", "jvm_gc_duration_seconds_total", true, gcAttrs, gcLabels},
	famBufUsed:      {"jvm.buffer.memory.used", "By", "Memory used by the JVM's direct or mapped buffers (Spark's JvmSource).", "jvm_buffer_memory_used_bytes", false, bufAttrs, poolLabel},
	famBufLimit:     {"jvm.buffer.memory.limit", "By", "Total capacity of the JVM's direct or mapped buffers (Spark's JvmSource).", "jvm_buffer_memory_limit_bytes", false, bufAttrs, poolLabel},
	famBufCount:     {"jvm.buffer.count", "{buffer}", "Direct or mapped buffers in the JVM (Spark's JvmSource).", "jvm_buffer_current", false, bufAttrs, poolLabel},
	famSparkMem:     {"spark.executor.memory.usage", "By", "Current value of one of Spark's executor memory metrics (its ExecutorMetrics source), by Spark's metric name.", "spark_executor_memory_bytes", false, kindAttrs, kindLabel},
	famSparkGCCount: {"spark.executor.gc.count", "{collection}", "Garbage collections since the executor started, by kind (Spark's ExecutorMetrics source).", "spark_executor_gc_collections_total", true, gcKindAttrs, kindLabel},
	famSparkGCDuration: {"spark.executor.gc.duration", "s", "Time in garbage collection since the executor started, by kind (Spark's ExecutorMetrics source).",
		"spark_executor_gc_duration_seconds_total", true, gcKindAttrs, kindLabel},
	famTasksActive:    {"spark.executor.tasks.active", "{task}", "Tasks running in the executor (Spark's executor source).", "spark_executor_active_tasks", false, nil, nil},
	famTasksCompleted: {"spark.executor.tasks.completed", "{task}", "Tasks the executor completed (Spark's executor source).", "spark_executor_completed_tasks_total", true, nil, nil},
	famCPUTime:        {"spark.executor.cpu.time", "s", "CPU time the executor's tasks used (Spark's executor source).", "spark_executor_cpu_seconds_total", true, nil, nil},
	famRunTime:        {"spark.executor.run.time", "s", "Time the executor's tasks ran (Spark's executor source).", "spark_executor_run_seconds_total", true, nil, nil},
	famTaskGC:         {"spark.executor.task.gc.time", "s", "JVM GC time while the executor's tasks ran (Spark's executor source).", "spark_executor_task_gc_seconds_total", true, nil, nil},
	famSpilledMemory:  {"spark.executor.spill.memory", "By", "Bytes the executor's tasks spilled, as in memory (Spark's executor source).", "spark_executor_memory_spilled_bytes_total", true, nil, nil},
	famSpilledDisk:    {"spark.executor.spill.disk", "By", "Bytes the executor's tasks spilled, as on disk (Spark's executor source).", "spark_executor_disk_spilled_bytes_total", true, nil, nil},
}

// mapped is a point as one series of a family.
type mapped struct {
	fam   int
	attrs [2]string // values of the family's attrs
	value float64
}

// mapPoint maps a point onto its family, or says it has none: a metric
// sparkdx does not read, or JvmSource's heap/non-heap/total, which are
// its pools summed (serve sums pools by type as it does the agent's).
func mapPoint(p Point) (mapped, bool) {
	switch p.Source {
	case "jvm":
		return mapJVM(p.Metric, p.Value)
	case "ExecutorMetrics":
		return mapExecutorMetric(p.Metric, p.Value)
	case "executor":
		return mapExecutorSource(p.Metric, p.Value)
	}
	return mapped{}, false
}

// mapJVM reads JvmSource's names (Dropwizard's MemoryUsageGaugeSet,
// GarbageCollectorMetricSet and BufferPoolMetricSet, whitespace in names
// turned to '-').
func mapJVM(metric string, v float64) (mapped, bool) {
	dot := strings.LastIndexByte(metric, '.')
	if dot <= 0 {
		return mapped{}, false
	}
	head, field := metric[:dot], metric[dot+1:]
	if pool, ok := strings.CutPrefix(head, "pools."); ok {
		fam := map[string]int{"used": famMemUsed, "committed": famMemCommitted, "max": famMemLimit}
		f, ok := fam[field]
		if !ok || pool == "" || v < 0 { // max is -1 for a pool without one
			return mapped{}, false
		}
		name, typ := poolName(pool)
		return mapped{fam: f, attrs: [2]string{name, typ}, value: v}, true
	}
	switch head {
	case "heap", "non-heap", "total":
		return mapped{}, false
	case "direct", "mapped":
		fam := map[string]int{"used": famBufUsed, "capacity": famBufLimit, "count": famBufCount}
		f, ok := fam[field]
		return mapped{fam: f, attrs: [2]string{head}, value: v}, ok && v >= 0
	}
	if strings.IndexByte(head, '.') >= 0 || v < 0 {
		return mapped{}, false
	}
	gc := strings.ReplaceAll(head, "-", " ") // no HotSpot collector has a '-' in its name
	switch field {
	case "count":
		return mapped{fam: famGCCount, attrs: [2]string{gc, gcAction(gc)}, value: v}, true
	case "time": // milliseconds
		return mapped{fam: famGCDuration, attrs: [2]string{gc, gcAction(gc)}, value: v / 1e3}, true
	}
	return mapped{}, false
}

// gcAction is OpenTelemetry's jvm.gc.action for a collector, as the JVM's
// GC notifications word it; serve counts "end of major GC" as a full
// collection (jvm.gc.count{major}), as it does the agent's.
func gcAction(name string) string {
	switch {
	case strings.Contains(name, "Young"), strings.Contains(name, "Scavenge"), name == "ParNew", name == "Copy", strings.Contains(name, "Minor"):
		return "end of minor GC"
	case strings.Contains(name, "Old"), strings.Contains(name, "MarkSweep"), strings.Contains(name, "Major"):
		return "end of major GC"
	}
	return "end of concurrent GC"
}

// knownPools are HotSpot's memory pools (JDK 8 to 21) by the name a sink
// sends, with their JMX name and type: the JMX name is what serve and the
// agent compare ("G1 Old Gen" is the old generation).
var knownPools = func() map[string][2]string {
	m := map[string][2]string{}
	add := func(typ string, names ...string) {
		for _, n := range names {
			m[strings.ReplaceAll(n, " ", "-")] = [2]string{n, typ}
		}
	}
	add("non_heap", "CodeHeap 'non-nmethods'", "CodeHeap 'profiled nmethods'", "CodeHeap 'non-profiled nmethods'",
		"Code Cache", "Metaspace", "Compressed Class Space")
	add("heap", "G1 Eden Space", "G1 Old Gen", "G1 Survivor Space", "PS Eden Space", "PS Old Gen", "PS Survivor Space",
		"Par Eden Space", "Par Survivor Space", "CMS Old Gen", "Eden Space", "Survivor Space", "Tenured Gen",
		"ZHeap", "ZGC Young Generation", "ZGC Old Generation", "Shenandoah", "Shenandoah Young Gen", "Shenandoah Old Gen")
	return m
}()

// poolName is a pool's JMX name and type (heap or non_heap) from the name
// a sink sent; an unknown pool keeps its name, typed by the words heap
// pools use.
func poolName(sent string) (name, typ string) {
	if k, ok := knownPools[sent]; ok {
		return k[0], k[1]
	}
	l := strings.ToLower(sent)
	for _, w := range []string{"eden", "survivor", "old", "tenured", "young", "zheap", "shenandoah"} {
		if strings.Contains(l, w) {
			return sent, "heap"
		}
	}
	return sent, "non_heap"
}

// executorGC are the ExecutorMetrics source's GC metrics: count or time
// (ms), and their kind.
var executorGC = map[string]struct {
	fam  int
	kind string
}{
	"MinorGCCount": {famSparkGCCount, "minor"}, "MajorGCCount": {famSparkGCCount, "major"},
	"ConcurrentGCCount": {famSparkGCCount, "concurrent"},
	"MinorGCTime":       {famSparkGCDuration, "minor"}, "MajorGCTime": {famSparkGCDuration, "major"},
	"ConcurrentGCTime": {famSparkGCDuration, "concurrent"}, "TotalGCTime": {famSparkGCDuration, "total"},
}

// mapExecutorMetric reads the ExecutorMetrics source: Spark's
// ExecutorMetricType names (JVMHeapMemory, OnHeapExecutionMemory,
// ProcessTreeJVMRSSMemory, ...), current values.
func mapExecutorMetric(metric string, v float64) (mapped, bool) {
	if v < 0 || strings.IndexByte(metric, '.') >= 0 {
		return mapped{}, false
	}
	if strings.HasSuffix(metric, "Memory") {
		return mapped{fam: famSparkMem, attrs: [2]string{metric}, value: v}, true
	}
	g, ok := executorGC[metric]
	if !ok {
		return mapped{}, false
	}
	if g.fam == famSparkGCDuration {
		v /= 1e3
	}
	return mapped{fam: g.fam, attrs: [2]string{g.kind}, value: v}, true
}

// executorSource are the executor source's metrics read, with the factor
// to the family's unit; GraphiteSink sends a counter as "<name>.count",
// StatsdSink as "<name>" of type c.
var executorSource = map[string]struct {
	fam   int
	scale float64
}{
	"threadpool.activeTasks":   {famTasksActive, 1},
	"threadpool.completeTasks": {famTasksCompleted, 1},
	"cpuTime":                  {famCPUTime, 1e-9},
	"runTime":                  {famRunTime, 1e-3},
	"jvmGCTime":                {famTaskGC, 1e-3},
	"memoryBytesSpilled":       {famSpilledMemory, 1},
	"diskBytesSpilled":         {famSpilledDisk, 1},
}

func mapExecutorSource(metric string, v float64) (mapped, bool) {
	e, ok := executorSource[metric]
	if !ok {
		e, ok = executorSource[strings.TrimSuffix(metric, ".count")]
	}
	if !ok || v < 0 {
		return mapped{}, false
	}
	return mapped{fam: e.fam, value: v * e.scale}, true
}

package agent

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the agent's latest snapshot as Prometheus metrics. Metrics
// are rendered from the snapshot taken by the sampling loop, so a scrape
// never reads /proc itself.
func (a *Agent) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(promCollector{a: a, descs: &descCache{m: map[string]*prometheus.Desc{}}})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// promCollector is an unchecked collector: the series it emits depend on
// the processes found, so it describes none up front.
type promCollector struct {
	a     *Agent
	descs *descCache
}

func (promCollector) Describe(chan<- *prometheus.Desc) {}

// descCache keeps descriptors across scrapes: building one validates its
// name and labels, which costs more than the sample itself.
type descCache struct {
	mu sync.Mutex
	m  map[string]*prometheus.Desc
}

func (c *descCache) get(name, help string, labels []string) *prometheus.Desc {
	key := name + "\x00" + strings.Join(labels, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[key]
	if !ok {
		d = prometheus.NewDesc(name, help, labels, nil)
		c.m[key] = d
	}
	return d
}

// emitter builds const metrics with a fixed set of leading label values.
type emitter struct {
	ch     chan<- prometheus.Metric
	descs  *descCache
	names  []string
	values []string
}

// emit sends one sample; extra holds further label name, value pairs.
func (e emitter) emit(name, help string, t prometheus.ValueType, v float64, extra ...string) {
	names := append(make([]string, 0, len(e.names)+len(extra)/2), e.names...)
	values := append(make([]string, 0, len(e.values)+len(extra)/2), e.values...)
	for i := 0; i+1 < len(extra); i += 2 {
		names = append(names, extra[i])
		values = append(values, extra[i+1])
	}
	d := e.descs.get(name, help, names)
	m, err := prometheus.NewConstMetric(d, t, v, values...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	e.ch <- m
}

func (e emitter) gauge(name, help string, v float64, labels ...string) {
	e.emit(name, help, prometheus.GaugeValue, v, labels...)
}

func (e emitter) counter(name, help string, v float64, labels ...string) {
	e.emit(name, help, prometheus.CounterValue, v, labels...)
}

func (c promCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.a.Last()
	st := c.a.Stats()
	host := c.a.cfg.Host
	agent := emitter{ch: ch, descs: c.descs, names: []string{"host"}, values: []string{host}}
	agent.counter("sparkdx_agent_cycles_total", "Sampling cycles completed.", float64(st.Cycles))
	agent.counter("sparkdx_agent_cpu_seconds_total", "CPU time the agent spent sampling.", st.CPUSeconds)
	for src, n := range st.Errors {
		agent.counter("sparkdx_agent_read_errors_total", "Reads of /proc, cgroup or hsperfdata files that failed, by source.", float64(n), "source", src)
	}
	for role, causes := range st.Exits {
		for cause, n := range causes {
			agent.counter("sparkdx_process_exits_total", "Spark processes that disappeared, by role and exit cause.", float64(n), "role", string(role), "cause", cause)
		}
	}
	if st.Profile != nil {
		collectProfileMetrics(agent, st.Profile)
	}
	if s == nil {
		return
	}
	collectNodeMetrics(agent, s.Node)
	for i := range s.Processes {
		p := &s.Processes[i]
		e := emitter{ch: ch, descs: c.descs, names: []string{"host", "app_id", "executor_id", "role", "pid"},
			values: []string{host, p.AppID, p.ExecutorID, string(p.Role), strconv.Itoa(p.PID)}}
		collectProcessMetrics(e, p)
		if p.Container != nil {
			collectContainerMetrics(e, p.Container)
		}
		if p.JVM != nil {
			collectJVMMetrics(e, p.JVM)
		}
		if p.Spark != nil {
			collectSparkMetrics(emitter{ch: ch, descs: c.descs, names: []string{"host", "app_id"},
				values: []string{host, p.Spark.AppID}}, p.Spark)
		}
	}
}

// collectProfileMetrics exports the scheduled recordings' counters: what
// profiling costs the node is read from them.
func collectProfileMetrics(e emitter, st *ProfileStats) {
	const recordings = "Scheduled JVM recordings, by outcome (written, or failed: attach disallowed, JVM gone)."
	e.counter("sparkdx_agent_profile_recordings_total", recordings, float64(st.Written), "outcome", "written")
	e.counter("sparkdx_agent_profile_recordings_total", recordings, float64(st.Failed), "outcome", "failed")
	e.counter("sparkdx_agent_profile_cpu_seconds_total", "CPU time the agent spent on recordings: attach, thread dumps, parsing, writing.", st.CPUSeconds)
	e.gauge("sparkdx_agent_profile_last_cpu_seconds", "CPU time the agent spent on its last written recording.", st.LastCPUSeconds)
	e.gauge("sparkdx_agent_profile_last_bytes", "Size of the last recording's profile files.", float64(st.LastBytes))
	e.gauge("sparkdx_agent_profile_dir_bytes", "Bytes of profiles kept in the profile directory after the last recording.", float64(st.DirBytes))
	e.counter("sparkdx_agent_profile_removed_files_total", "Profile files removed to keep the directory under its bound.", float64(st.Removed))
}

// collectSparkMetrics exports what a driver's REST API said about its
// executors, one series per executor (the driver's "driver" included).
func collectSparkMetrics(e emitter, app *SparkApp) {
	e.gauge("sparkdx_spark_rest_read_timestamp_seconds", "When the driver's REST API was last read for its executors.", float64(app.Time)/1000)
	for i := range app.Executors {
		x := &app.Executors[i]
		if m := x.Storage; m != nil {
			const used, total = "Storage memory cached blocks use, on or off heap (Spark's memoryMetrics).", "Storage memory available to cached blocks, on or off heap (Spark's memoryMetrics)."
			e.gauge("spark_executor_storage_memory_used_bytes", used, float64(m.UsedOnHeap), "executor_id", x.ID, "area", "on_heap")
			e.gauge("spark_executor_storage_memory_used_bytes", used, float64(m.UsedOffHeap), "executor_id", x.ID, "area", "off_heap")
			e.gauge("spark_executor_storage_memory_total_bytes", total, float64(m.TotalOnHeap), "executor_id", x.ID, "area", "on_heap")
			e.gauge("spark_executor_storage_memory_total_bytes", total, float64(m.TotalOffHeap), "executor_id", x.ID, "area", "off_heap")
		} else {
			e.gauge("spark_executor_storage_memory_used_bytes", "Storage memory cached blocks use (Spark's memoryUsed when memoryMetrics is absent).", float64(x.MemoryUsed), "executor_id", x.ID, "area", "all")
		}
		for _, kind := range sparkPeakKinds(x.Peak) {
			e.gauge("spark_executor_peak_memory_bytes", "Highest value of one of Spark's executor memory metrics since the executor started (peakMemoryMetrics, from its heartbeats), by Spark's metric name.",
				float64(x.Peak[kind]), "executor_id", x.ID, "kind", kind)
		}
	}
}

// sparkPeakKinds are the memory metrics (JVMHeapMemory, DirectPoolMemory,
// ProcessTreePythonRSSMemory, ...) among Spark's peak executor metrics,
// sorted; the GC counts and times are left out.
func sparkPeakKinds(peak map[string]int64) []string {
	kinds := make([]string, 0, len(peak))
	for k := range peak {
		if strings.HasSuffix(k, "Memory") {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return kinds
}

func collectNodeMetrics(e emitter, n Node) {
	e.gauge("sparkdx_node_memory_total_bytes", "Node memory (MemTotal).", float64(n.MemTotalBytes))
	e.gauge("sparkdx_node_memory_available_bytes", "Node memory available to new work (MemAvailable).", float64(n.MemAvailableBytes))
	e.gauge("sparkdx_node_memory_free_bytes", "Node memory unused (MemFree).", float64(n.MemFreeBytes))
	e.gauge("sparkdx_node_memory_cached_bytes", "Node page cache (Cached).", float64(n.CachedBytes))
	e.gauge("sparkdx_node_swap_total_bytes", "Node swap space.", float64(n.SwapTotalBytes))
	e.gauge("sparkdx_node_swap_free_bytes", "Node swap space unused.", float64(n.SwapFreeBytes))
	e.gauge("sparkdx_node_load1", "Node load average over 1 minute.", n.Load1)
	e.gauge("sparkdx_node_load5", "Node load average over 5 minutes.", n.Load5)
	e.gauge("sparkdx_node_load15", "Node load average over 15 minutes.", n.Load15)
	e.gauge("sparkdx_node_cpus", "Node CPUs.", float64(n.CPUs))
	const cpuHelp = "Node CPU time by mode, summed over CPUs."
	e.counter("sparkdx_node_cpu_seconds_total", cpuHelp, n.CPUUserSeconds, "mode", "user")
	e.counter("sparkdx_node_cpu_seconds_total", cpuHelp, n.CPUSystemSeconds, "mode", "system")
	e.counter("sparkdx_node_cpu_seconds_total", cpuHelp, n.CPUIdleSeconds, "mode", "idle")
	e.counter("sparkdx_node_cpu_seconds_total", cpuHelp, n.CPUIOWaitSeconds, "mode", "iowait")
	e.counter("sparkdx_node_cpu_seconds_total", cpuHelp, n.CPUStealSeconds, "mode", "steal")
	e.counter("sparkdx_node_oom_kills_total", "Kernel OOM kills on the node since boot.", float64(n.OOMKills))
}

func collectProcessMetrics(e emitter, p *Process) {
	e.gauge("sparkdx_process_info", "Spark process identity; value 1.", 1, "main_class", p.MainClass, "container_id", p.ContainerID)
	e.gauge("sparkdx_process_resident_memory_bytes", "Resident set size (VmRSS).", float64(p.RSSBytes))
	e.gauge("sparkdx_process_proportional_memory_bytes", "Proportional set size (smaps_rollup Pss).", float64(p.PSSBytes))
	e.gauge("sparkdx_process_resident_memory_peak_bytes", "Peak resident set size (VmHWM).", float64(p.RSSPeakBytes))
	e.counter("sparkdx_process_cpu_seconds_total", "Process CPU time by mode.", p.CPUUserSeconds, "mode", "user")
	e.counter("sparkdx_process_cpu_seconds_total", "Process CPU time by mode.", p.CPUSystemSeconds, "mode", "system")
	e.gauge("sparkdx_process_threads", "Process threads.", float64(p.Threads))
	e.gauge("sparkdx_process_open_fds", "Open file descriptors.", float64(p.OpenFDs))
	e.counter("sparkdx_process_io_read_bytes_total", "Bytes the process caused to be read from storage.", float64(p.ReadBytes))
	e.counter("sparkdx_process_io_written_bytes_total", "Bytes the process caused to be written to storage.", float64(p.WriteBytes))
	e.gauge("sparkdx_process_start_time_seconds", "Process start time since the epoch.", float64(p.StartTime)/1000)
	perf := 0.0
	if p.JVM != nil {
		perf = 1
	}
	e.gauge("sparkdx_process_jvm_perfdata_available", "1 when the JVM's hsperfdata was read; 0 for example under -XX:-UsePerfData.", perf)
	if l := p.Launcher; l != nil {
		e.gauge("sparkdx_process_launcher_resident_memory_bytes", "Resident set size of the Python process that started a driver JVM (python job.py, a notebook kernel, an Airflow task).", float64(l.RSSBytes))
		e.counter("sparkdx_process_launcher_cpu_seconds_total", "CPU time of the Python process that started a driver JVM, by mode.", l.CPUUserSeconds, "mode", "user")
		e.counter("sparkdx_process_launcher_cpu_seconds_total", "CPU time of the Python process that started a driver JVM, by mode.", l.CPUSystemSeconds, "mode", "system")
	}
	for _, k := range []Kind{KindJVM, KindPython, KindOther} {
		t, ok := p.Tree[k]
		if !ok {
			continue
		}
		kind := string(k)
		e.gauge("sparkdx_process_tree_processes", "Processes in the Spark process's tree by kind (jvm, python, other).", float64(t.Processes), "kind", kind)
		e.gauge("sparkdx_process_tree_resident_memory_bytes", "Resident set size summed over the process tree by kind.", float64(t.RSSBytes), "kind", kind)
		e.gauge("sparkdx_process_tree_proportional_memory_bytes", "Proportional set size summed over the process tree by kind.", float64(t.PSSBytes), "kind", kind)
		e.counter("sparkdx_process_tree_cpu_seconds_total", "CPU time summed over the process tree by kind and mode.", t.CPUUserSeconds, "kind", kind, "mode", "user")
		e.counter("sparkdx_process_tree_cpu_seconds_total", "CPU time summed over the process tree by kind and mode.", t.CPUSystemSeconds, "kind", kind, "mode", "system")
	}
}

func collectContainerMetrics(e emitter, c *Container) {
	if c.MemoryLimitBytes > 0 {
		e.gauge("sparkdx_process_cgroup_memory_limit_bytes", "Smallest memory limit on the process's cgroup and its ancestors.", float64(c.MemoryLimitBytes))
	}
	e.gauge("sparkdx_process_cgroup_memory_usage_bytes", "Memory charged to the process's cgroup.", float64(c.MemoryUsageBytes))
	e.counter("sparkdx_process_cgroup_oom_kills_total", "OOM kills inside the process's cgroup.", float64(c.OOMKills))
	if c.CPUQuotaCores > 0 {
		e.gauge("sparkdx_process_cgroup_cpu_quota_cores", "CPU quota of the process's cgroup in cores.", c.CPUQuotaCores)
	}
	e.counter("sparkdx_process_cgroup_cpu_periods_total", "CPU enforcement periods of the process's cgroup.", float64(c.CPUPeriods))
	e.counter("sparkdx_process_cgroup_cpu_throttled_periods_total", "CPU periods in which the process's cgroup was throttled.", float64(c.CPUThrottledPeriods))
	e.counter("sparkdx_process_cgroup_cpu_throttled_seconds_total", "Time the process's cgroup was throttled.", c.CPUThrottledSeconds)
}

func collectJVMMetrics(e emitter, j *JVM) {
	for _, p := range j.Memory {
		e.gauge("jvm_memory_used_bytes", "JVM memory used, by pool.", float64(p.UsedBytes), "pool", p.Name, "type", p.Type)
		e.gauge("jvm_memory_committed_bytes", "JVM memory committed, by pool.", float64(p.CommittedBytes), "pool", p.Name, "type", p.Type)
		if p.MaxBytes > 0 {
			e.gauge("jvm_memory_limit_bytes", "JVM memory maximum, by pool.", float64(p.MaxBytes), "pool", p.Name, "type", p.Type)
		}
	}
	e.gauge("jvm_heap_used_bytes", "JVM heap used over all generations.", float64(j.HeapUsedBytes))
	e.gauge("jvm_heap_committed_bytes", "JVM heap committed over all generations.", float64(j.HeapCommittedBytes))
	e.gauge("jvm_heap_limit_bytes", "JVM heap maximum over all generations.", float64(j.HeapMaxBytes))
	for _, g := range j.GC {
		e.counter("jvm_gc_collections_total", "JVM garbage collections, by collector.", float64(g.Collections), "gc", g.Name)
		e.counter("jvm_gc_duration_seconds_total", "JVM garbage collection time, by collector.", g.Seconds, "gc", g.Name)
	}
	e.counter("jvm_class_loaded_total", "JVM classes loaded since start.", float64(j.ClassesLoaded))
	e.counter("jvm_class_unloaded_total", "JVM classes unloaded since start.", float64(j.ClassesUnloaded))
	e.gauge("jvm_class_current", "JVM classes currently loaded (jvm.class.count; renamed: promtool rejects _count on a gauge).", float64(j.ClassesLoaded-min(j.ClassesUnloaded, j.ClassesLoaded)))
	e.gauge("jvm_thread_live", "JVM live threads, by daemon status (jvm.thread.count; renamed: promtool rejects _count on a gauge).", float64(j.ThreadsDaemon), "daemon", "true")
	e.gauge("jvm_thread_live", "JVM live threads, by daemon status (jvm.thread.count; renamed: promtool rejects _count on a gauge).", float64(j.ThreadsLive-min(j.ThreadsDaemon, j.ThreadsLive)), "daemon", "false")
	e.gauge("jvm_thread_peak", "JVM peak live threads.", float64(j.ThreadsPeak))
	e.counter("jvm_safepoints_total", "JVM safepoints reached.", float64(j.Safepoints))
	e.counter("jvm_safepoint_duration_seconds_total", "JVM time spent at safepoints.", j.SafepointSeconds)
	e.counter("jvm_jit_compilation_duration_seconds_total", "JVM JIT compilation time.", j.JITCompileSeconds)
	e.counter("jvm_jit_compilations_total", "JVM JIT compilations (sun.ci.totalCompiles).", float64(j.JITCompilations))
	e.counter("jvm_jit_bailouts_total", "JVM JIT compilations that bailed out (sun.ci.totalBailouts).", float64(j.JITBailouts))
	e.counter("jvm_jit_compiled_code_bytes_total", "Machine code bytes the JIT compiled since start (sun.ci.nmethodCodeSize; cumulative: hsperfdata has no code cache usage gauge).", float64(j.JITCodeBytes))
	if j.CodeCacheReservedBytes > 0 {
		e.gauge("jvm_code_cache_reserved_bytes", "Code cache size the JVM was started with (-XX:ReservedCodeCacheSize; absent when the JVM chose its default).", float64(j.CodeCacheReservedBytes))
	}
	e.gauge("jvm_start_time_seconds", "JVM start time since the epoch.", float64(j.StartTime)/1000)
}

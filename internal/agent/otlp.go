package agent

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// OTLP pushes the agent's latest snapshot as OTLP metrics named after the
// OpenTelemetry JVM and process semantic conventions (jvm.memory.used,
// jvm.class.loaded, process.cpu.time, ...).
type OTLP struct {
	provider *sdkmetric.MeterProvider
}

// OTLP protocols, as OTEL_EXPORTER_OTLP_PROTOCOL names them.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// NewOTLP starts pushing to endpoint every interval, over protocol:
// http/protobuf ("" too) to http://host:4318 or a full URL with its path
// (serve's /v1/metrics, a collector), grpc to http://host:4317 (plain
// text) or https://host:4317.
func NewOTLP(ctx context.Context, a *Agent, endpoint, protocol string, interval time.Duration) (*OTLP, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("want an http:// or https:// URL")
	}
	var exp sdkmetric.Exporter
	switch protocol {
	case "", ProtocolHTTP:
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/metrics"
		}
		exp, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(u.String()))
	case ProtocolGRPC:
		exp, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(u.String()))
	default:
		return nil, fmt.Errorf("protocol %q: want %s or %s", protocol, ProtocolGRPC, ProtocolHTTP)
	}
	if err != nil {
		return nil, err
	}
	res := resource.NewSchemaless(attribute.String("service.name", "sparkdx-agent"), attribute.String("host.name", a.cfg.Host))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(interval))))
	if err := registerOTLP(mp.Meter("github.com/sparkdx/sparkdx/internal/agent"), a); err != nil {
		_ = mp.Shutdown(ctx)
		return nil, err
	}
	return &OTLP{provider: mp}, nil
}

// Flush pushes the current snapshot now.
func (o *OTLP) Flush(ctx context.Context) error { return o.provider.ForceFlush(ctx) }

// Shutdown pushes what is pending and stops.
func (o *OTLP) Shutdown(ctx context.Context) error { return o.provider.Shutdown(ctx) }

// otlpInstruments are the observable instruments fed from a snapshot.
type otlpInstruments struct {
	memUsed, memCommitted, memLimit metric.Int64ObservableUpDownCounter
	gcDuration                      metric.Float64ObservableCounter
	gcCount                         metric.Int64ObservableCounter
	classLoaded, classUnloaded      metric.Int64ObservableCounter
	classCount, threadCount         metric.Int64ObservableUpDownCounter
	procMemUsage, procMemPSS        metric.Int64ObservableUpDownCounter
	procCPU                         metric.Float64ObservableCounter
	procThreads, procFDs            metric.Int64ObservableUpDownCounter
	procDiskIO                      metric.Int64ObservableCounter
	cgLimit, cgUsage                metric.Int64ObservableUpDownCounter
	cgOOMKills                      metric.Int64ObservableCounter
	cgThrottled                     metric.Float64ObservableCounter
	treeMem                         metric.Int64ObservableUpDownCounter
	treeCPU                         metric.Float64ObservableCounter
	launcherMem                     metric.Int64ObservableUpDownCounter
	launcherCPU                     metric.Float64ObservableCounter
	nodeMemAvailable, nodeMemTotal  metric.Int64ObservableUpDownCounter
	exits                           metric.Int64ObservableCounter
	jitCode                         metric.Int64ObservableCounter
	sparkPeak                       metric.Int64ObservableUpDownCounter
	sparkStorageUsed, sparkStorage  metric.Int64ObservableUpDownCounter
}

func registerOTLP(m metric.Meter, a *Agent) error {
	var in otlpInstruments
	var err error
	i64 := func(dst *metric.Int64ObservableUpDownCounter, name, unit, desc string) {
		if err == nil {
			*dst, err = m.Int64ObservableUpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		}
	}
	c64 := func(dst *metric.Int64ObservableCounter, name, unit, desc string) {
		if err == nil {
			*dst, err = m.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		}
	}
	f64 := func(dst *metric.Float64ObservableCounter, name, unit, desc string) {
		if err == nil {
			*dst, err = m.Float64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		}
	}
	i64(&in.memUsed, "jvm.memory.used", "By", "Measure of memory used.")
	i64(&in.memCommitted, "jvm.memory.committed", "By", "Measure of memory committed.")
	i64(&in.memLimit, "jvm.memory.limit", "By", "Measure of max obtainable memory.")
	f64(&in.gcDuration, "jvm.gc.duration", "s", "Cumulative time spent in garbage collection (hsperfdata gives totals, not a histogram).")
	c64(&in.gcCount, "jvm.gc.count", "{collection}", "Garbage collections since JVM start.")
	c64(&in.classLoaded, "jvm.class.loaded", "{class}", "Number of classes loaded since JVM start.")
	c64(&in.classUnloaded, "jvm.class.unloaded", "{class}", "Number of classes unloaded since JVM start.")
	i64(&in.classCount, "jvm.class.count", "{class}", "Number of classes currently loaded.")
	i64(&in.threadCount, "jvm.thread.count", "{thread}", "Number of executing platform threads.")
	i64(&in.procMemUsage, "process.memory.usage", "By", "The amount of physical memory in use (RSS).")
	i64(&in.procMemPSS, "sparkdx.process.memory.pss", "By", "Proportional set size.")
	f64(&in.procCPU, "process.cpu.time", "s", "Total CPU seconds broken down by different CPU modes.")
	i64(&in.procThreads, "process.thread.count", "{thread}", "Process threads count.")
	i64(&in.procFDs, "process.unix.file_descriptor.count", "{file_descriptor}", "Number of unix file descriptors in use by the process.")
	c64(&in.procDiskIO, "process.disk.io", "By", "Disk bytes transferred.")
	i64(&in.cgLimit, "sparkdx.cgroup.memory.limit", "By", "Memory limit of the process's cgroup.")
	i64(&in.cgUsage, "sparkdx.cgroup.memory.usage", "By", "Memory charged to the process's cgroup.")
	c64(&in.cgOOMKills, "sparkdx.cgroup.oom_kills", "{kill}", "OOM kills inside the process's cgroup.")
	f64(&in.cgThrottled, "sparkdx.cgroup.cpu.throttled_time", "s", "Time the process's cgroup was CPU-throttled.")
	i64(&in.treeMem, "sparkdx.process.tree.memory.usage", "By", "RSS summed over the Spark process's tree by kind.")
	f64(&in.treeCPU, "sparkdx.process.tree.cpu.time", "s", "CPU seconds summed over the Spark process's tree by kind and mode.")
	i64(&in.launcherMem, "sparkdx.process.launcher.memory.usage", "By", "RSS of the Python process that started a driver JVM (python job.py, a notebook kernel, an Airflow task).")
	f64(&in.launcherCPU, "sparkdx.process.launcher.cpu.time", "s", "CPU seconds of the Python process that started a driver JVM, by mode.")
	i64(&in.nodeMemAvailable, "system.memory.available", "By", "Node MemAvailable.")
	i64(&in.nodeMemTotal, "system.memory.limit", "By", "Node MemTotal.")
	c64(&in.jitCode, "sparkdx.jvm.jit.compiled_code", "By", "Machine code bytes the JIT compiled since start (hsperfdata sun.ci.nmethodCodeSize).")
	i64(&in.sparkPeak, "spark.executor.memory.peak", "By", "Highest value of one of Spark's executor memory metrics since the executor started (the driver's REST peakMemoryMetrics), by spark.memory.kind.")
	i64(&in.sparkStorageUsed, "spark.executor.storage_memory.used", "By", "Storage memory cached blocks use, spark.memory.kind on_heap or off_heap (the driver's REST memoryMetrics).")
	i64(&in.sparkStorage, "spark.executor.storage_memory.limit", "By", "Storage memory available to cached blocks, spark.memory.kind on_heap or off_heap.")
	c64(&in.exits, "sparkdx.process.exits", "{process}", "Spark processes that disappeared, by role and exit cause.")
	if err != nil {
		return fmt.Errorf("otlp instruments: %w", err)
	}
	obs := []metric.Observable{in.memUsed, in.memCommitted, in.memLimit, in.gcDuration, in.gcCount, in.classLoaded,
		in.classUnloaded, in.classCount, in.threadCount, in.procMemUsage, in.procMemPSS, in.procCPU, in.procThreads,
		in.procFDs, in.procDiskIO, in.cgLimit, in.cgUsage, in.cgOOMKills, in.cgThrottled, in.treeMem, in.treeCPU, in.launcherMem, in.launcherCPU,
		in.nodeMemAvailable, in.nodeMemTotal, in.exits, in.jitCode,
		in.sparkPeak, in.sparkStorageUsed, in.sparkStorage}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		if s := a.Last(); s != nil {
			in.observe(o, s)
		}
		for role, causes := range a.Stats().Exits {
			for cause, n := range causes {
				o.ObserveInt64(in.exits, int64(n), metric.WithAttributes(attribute.String("spark.role", string(role)), attribute.String("cause", cause)))
			}
		}
		return nil
	}, obs...)
	return err
}

func (in *otlpInstruments) observe(o metric.Observer, s *Snapshot) {
	o.ObserveInt64(in.nodeMemAvailable, int64(s.Node.MemAvailableBytes))
	o.ObserveInt64(in.nodeMemTotal, int64(s.Node.MemTotalBytes))
	for i := range s.Processes {
		p := &s.Processes[i]
		base := []attribute.KeyValue{attribute.Int("process.pid", p.PID), attribute.String("spark.role", string(p.Role)),
			attribute.String("spark.app.id", p.AppID), attribute.String("spark.executor.id", p.ExecutorID)}
		with := func(kv ...attribute.KeyValue) metric.MeasurementOption {
			return metric.WithAttributes(append(append([]attribute.KeyValue(nil), base...), kv...)...)
		}
		o.ObserveInt64(in.procMemUsage, int64(p.RSSBytes), with())
		o.ObserveInt64(in.procMemPSS, int64(p.PSSBytes), with())
		o.ObserveFloat64(in.procCPU, p.CPUUserSeconds, with(attribute.String("cpu.mode", "user")))
		o.ObserveFloat64(in.procCPU, p.CPUSystemSeconds, with(attribute.String("cpu.mode", "system")))
		o.ObserveInt64(in.procThreads, int64(p.Threads), with())
		o.ObserveInt64(in.procFDs, int64(p.OpenFDs), with())
		o.ObserveInt64(in.procDiskIO, int64(p.ReadBytes), with(attribute.String("disk.io.direction", "read")))
		o.ObserveInt64(in.procDiskIO, int64(p.WriteBytes), with(attribute.String("disk.io.direction", "write")))
		if p.Spark != nil {
			in.observeSpark(o, p.Spark)
		}
		for k, t := range p.Tree {
			kind := attribute.String("sparkdx.process.kind", string(k))
			o.ObserveInt64(in.treeMem, int64(t.RSSBytes), with(kind))
			o.ObserveFloat64(in.treeCPU, t.CPUUserSeconds, with(kind, attribute.String("cpu.mode", "user")))
			o.ObserveFloat64(in.treeCPU, t.CPUSystemSeconds, with(kind, attribute.String("cpu.mode", "system")))
		}
		if l := p.Launcher; l != nil {
			o.ObserveInt64(in.launcherMem, int64(l.RSSBytes), with())
			o.ObserveFloat64(in.launcherCPU, l.CPUUserSeconds, with(attribute.String("cpu.mode", "user")))
			o.ObserveFloat64(in.launcherCPU, l.CPUSystemSeconds, with(attribute.String("cpu.mode", "system")))
		}
		if c := p.Container; c != nil {
			if c.MemoryLimitBytes > 0 {
				o.ObserveInt64(in.cgLimit, int64(c.MemoryLimitBytes), with())
			}
			o.ObserveInt64(in.cgUsage, int64(c.MemoryUsageBytes), with())
			o.ObserveInt64(in.cgOOMKills, int64(c.OOMKills), with())
			o.ObserveFloat64(in.cgThrottled, c.CPUThrottledSeconds, with())
		}
		j := p.JVM
		if j == nil {
			continue
		}
		for _, m := range j.Memory {
			kv := with(attribute.String("jvm.memory.pool.name", m.Name), attribute.String("jvm.memory.type", m.Type))
			o.ObserveInt64(in.memUsed, int64(m.UsedBytes), kv)
			o.ObserveInt64(in.memCommitted, int64(m.CommittedBytes), kv)
			if m.MaxBytes > 0 {
				o.ObserveInt64(in.memLimit, int64(m.MaxBytes), kv)
			}
		}
		for _, g := range j.GC {
			kv := with(attribute.String("jvm.gc.name", g.Name), attribute.String("jvm.gc.action", gcAction(g.Kind)))
			o.ObserveFloat64(in.gcDuration, g.Seconds, kv)
			o.ObserveInt64(in.gcCount, int64(g.Collections), kv)
		}
		o.ObserveInt64(in.jitCode, int64(j.JITCodeBytes), with())
		o.ObserveInt64(in.classLoaded, int64(j.ClassesLoaded), with())
		o.ObserveInt64(in.classUnloaded, int64(j.ClassesUnloaded), with())
		o.ObserveInt64(in.classCount, int64(j.ClassesLoaded)-int64(j.ClassesUnloaded), with())
		o.ObserveInt64(in.threadCount, int64(j.ThreadsDaemon), with(attribute.Bool("jvm.thread.daemon", true)))
		o.ObserveInt64(in.threadCount, int64(j.ThreadsLive)-int64(j.ThreadsDaemon), with(attribute.Bool("jvm.thread.daemon", false)))
	}
}

// observeSpark reports a driver's executors under their own application
// and executor ids: serve keeps them as samples of those executors
// (spark.executor.memory.peak{JVMHeapMemory}, ...).
func (in *otlpInstruments) observeSpark(o metric.Observer, app *SparkApp) {
	for i := range app.Executors {
		x := &app.Executors[i]
		with := func(kind string) metric.MeasurementOption {
			return metric.WithAttributes(attribute.String("spark.app.id", app.AppID),
				attribute.String("spark.executor.id", x.ID), attribute.String("spark.memory.kind", kind))
		}
		if m := x.Storage; m != nil {
			o.ObserveInt64(in.sparkStorageUsed, m.UsedOnHeap, with("on_heap"))
			o.ObserveInt64(in.sparkStorageUsed, m.UsedOffHeap, with("off_heap"))
			o.ObserveInt64(in.sparkStorage, m.TotalOnHeap, with("on_heap"))
			o.ObserveInt64(in.sparkStorage, m.TotalOffHeap, with("off_heap"))
		}
		for _, kind := range sparkPeakKinds(x.Peak) {
			o.ObserveInt64(in.sparkPeak, x.Peak[kind], with(kind))
		}
	}
}

// gcAction is OpenTelemetry's jvm.gc.action for a collector of hsperf's
// kind (young, full, concurrent), as the JVM's GC notifications word it;
// serve reads "end of major GC" as a full collection.
func gcAction(kind string) string {
	switch kind {
	case "young":
		return "end of minor GC"
	case "full":
		return "end of major GC"
	}
	return "end of concurrent GC"
}

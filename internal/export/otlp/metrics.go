package otlp

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

// instruments are the application metrics, named in OpenTelemetry style
// (dotted, units in metadata, not in names).
type instruments struct {
	duration, phase, utilization, wasted metric.Float64Gauge
	ingestLag                            metric.Float64Gauge
	queueSize, logs                      metric.Int64Gauge
	memPeak                              metric.Int64Gauge
	taskDuration                         metric.Float64Histogram
	// Structured Streaming: each query's last micro-batch.
	batchDuration, inputRate, processRate metric.Float64Gauge
	stateRows, stateMemory                metric.Int64Gauge
}

func newInstruments(m metric.Meter) (*instruments, error) {
	var in instruments
	var err error
	gauge := func(dst *metric.Float64Gauge, name, unit, desc string) {
		if err == nil {
			*dst, err = m.Float64Gauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		}
	}
	gauge(&in.duration, "spark.app.duration", "s", "Application wall time so far.")
	gauge(&in.phase, "spark.app.phase.duration", "s", "Application wall time by phase (spark.phase: resource_wait, compute, io_write, driver_only).")
	gauge(&in.utilization, "spark.executor.utilization", "1", "Task time over the executor's core time.")
	gauge(&in.wasted, "spark.app.core.wasted_time", "s", "Executor core time no task used.")
	gauge(&in.ingestLag, "sparkdx.serve.ingest.lag", "s", "Age of the oldest event-log change sparkdx serve has not read.")
	igauge := func(dst *metric.Int64Gauge, name, unit, desc string) {
		if err == nil {
			*dst, err = m.Int64Gauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		}
	}
	igauge(&in.queueSize, "sparkdx.serve.queue.size", "{log}", "Event logs waiting to be read.")
	igauge(&in.logs, "sparkdx.serve.logs", "{log}", "Event logs sparkdx serve knows.")
	gauge(&in.batchDuration, "spark.streaming.batch.duration", "s", "Duration of a streaming query's last micro-batch.")
	gauge(&in.inputRate, "spark.streaming.input.rate", "{row}/s", "Rows per second that arrived for a streaming query's last micro-batch.")
	gauge(&in.processRate, "spark.streaming.process.rate", "{row}/s", "Rows per second a streaming query's last micro-batch processed.")
	igauge(&in.stateRows, "spark.streaming.state.rows", "{row}", "Rows in a streaming query's state stores after its last micro-batch.")
	igauge(&in.stateMemory, "spark.streaming.state.memory", "By", "Memory of a streaming query's state stores after its last micro-batch.")
	if err == nil {
		in.memPeak, err = m.Int64Gauge("spark.executor.memory.peak", metric.WithUnit("By"),
			metric.WithDescription("Executor's peak memory by spark.memory.kind (jvm_heap, jvm_off_heap, python_rss)."))
	}
	if err == nil {
		in.taskDuration, err = m.Float64Histogram("spark.task.duration", metric.WithUnit("s"),
			metric.WithDescription("Successful task attempts' duration by spark.stage.kind (compute, write)."),
			metric.WithExplicitBucketBoundaries(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600))
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: instruments: %w", err)
	}
	return &in, nil
}

// maxQueries bounds the streaming queries reported per application (those
// that reported a batch last), as Prometheus' MaxQueriesPerApp default.
const maxQueries = 50

// record reports one attempt's metrics; task durations only once, when
// the attempt has ended.
func (in *instruments) record(ctx context.Context, a *model.Attempt, r *analyze.Result) {
	app := []attribute.KeyValue{attribute.String("spark.app.id", a.AppID), attribute.String("spark.app.attempt_id", a.AttemptID),
		attribute.String("spark.app.name", a.AppName)}
	with := func(kv ...attribute.KeyValue) metric.MeasurementOption {
		return metric.WithAttributes(append(append([]attribute.KeyValue(nil), app...), kv...)...)
	}
	in.duration.Record(ctx, float64(r.DurationMs)/1000, with())
	for _, p := range []struct {
		name string
		ms   int64
	}{{"resource_wait", r.Phases.ResourceWaitMs}, {"compute", r.Phases.ComputeMs},
		{"io_write", r.Phases.OutputWriteMs}, {"driver_only", r.Phases.DriverOnlyMs}} {
		in.phase.Record(ctx, float64(p.ms)/1000, with(attribute.String("spark.phase", p.name)))
	}
	var wasted float64
	for i := range r.Executors {
		e := &r.Executors[i]
		wasted += e.WastedCoreHours * 3600
		ex := attribute.String("spark.executor.id", e.ID)
		in.utilization.Record(ctx, e.Utilization, with(ex))
		in.memPeak.Record(ctx, e.PeakJVMHeapBytes, with(ex, attribute.String("spark.memory.kind", "jvm_heap")))
		in.memPeak.Record(ctx, e.PeakJVMOffHeapBytes, with(ex, attribute.String("spark.memory.kind", "jvm_off_heap")))
		in.memPeak.Record(ctx, e.PeakPythonRSSBytes, with(ex, attribute.String("spark.memory.kind", "python_rss")))
	}
	in.wasted.Record(ctx, wasted, with())
	for _, q := range r.LatestQueries(maxQueries) {
		qa := with(attribute.String("spark.streaming.query.id", q.ID), attribute.String("spark.streaming.query.name", q.Name))
		in.batchDuration.Record(ctx, float64(q.Last.BatchDurationMs)/1000, qa)
		in.inputRate.Record(ctx, q.Last.InputRowsPerSecond, qa)
		in.processRate.Record(ctx, q.Last.ProcessedRowsPerSecond, qa)
		in.stateRows.Record(ctx, q.Last.StateRows, qa)
		in.stateMemory.Record(ctx, q.Last.StateMemoryBytes, qa)
	}
	if !r.Completed {
		return
	}
	write := map[[2]int]bool{}
	for i := range r.Stages {
		write[[2]int{r.Stages[i].StageID, r.Stages[i].AttemptID}] = r.Stages[i].IsWrite
	}
	kinds := [2]metric.MeasurementOption{with(attribute.String("spark.stage.kind", "compute")),
		with(attribute.String("spark.stage.kind", "write"))}
	for _, s := range a.Stages {
		k := kinds[0]
		if write[[2]int{s.StageID, s.AttemptID}] {
			k = kinds[1]
		}
		for _, t := range s.Tasks {
			if t.Successful() && t.LaunchTime > 0 {
				in.taskDuration.Record(ctx, float64(t.FinishTime-t.LaunchTime)/1000, k)
			}
		}
	}
}

// Health is sparkdx serve's ingest state, exported with ExportHealth.
type Health struct {
	IngestLag  time.Duration
	QueueDepth int
	Logs       int
}

// ExportHealth sends serve's ingest state now.
func (e *Exporter) ExportHealth(ctx context.Context, h Health) error {
	e.inst.ingestLag.Record(ctx, h.IngestLag.Seconds())
	e.inst.queueSize.Record(ctx, int64(h.QueueDepth))
	e.inst.logs.Record(ctx, int64(h.Logs))
	return e.mp.ForceFlush(ctx)
}

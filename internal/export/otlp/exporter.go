package otlp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

const scope = "github.com/sparkdx/sparkdx/internal/export/otlp"

// Exporter sends application traces and metrics to one OTLP endpoint. It
// is safe for concurrent use.
type Exporter struct {
	cfg    Config
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	tracer trace.Tracer
	inst   *instruments

	mu   sync.Mutex
	sent map[string]map[string]bool // attempt → spans exported while it ran
}

// New connects an exporter (lazily: nothing is dialled until the first
// export). A bad Config is an error.
func New(ctx context.Context, cfg Config) (*Exporter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spans, metrics, err := clients(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return build(ctx, cfg, spans, metrics)
}

// build wires the SDK around span and metric exporters.
func build(ctx context.Context, cfg Config, spans sdktrace.SpanExporter, metrics sdkmetric.Exporter) (*Exporter, error) {
	res := resource.NewSchemaless(attribute.String("service.name", cfg.serviceName()))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithIDGenerator(idGenerator{}),
		sdktrace.WithSampler(decided{}),
		sdktrace.WithBatcher(spans, sdktrace.WithBlocking(), sdktrace.WithMaxQueueSize(8192), sdktrace.WithMaxExportBatchSize(2048)))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)))
	inst, err := newInstruments(mp.Meter(scope))
	if err != nil {
		_ = tp.Shutdown(ctx)
		_ = mp.Shutdown(ctx)
		return nil, err
	}
	return &Exporter{cfg: cfg, tp: tp, mp: mp, tracer: tp.Tracer(scope), inst: inst, sent: map[string]map[string]bool{}}, nil
}

// delta makes every instrument report only what was recorded since the
// last export, so finished applications' series do not pile up.
func delta(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.DeltaTemporality }

func clients(ctx context.Context, cfg Config) (sdktrace.SpanExporter, sdkmetric.Exporter, error) {
	traces, metrics := cfg.signalURL("traces"), cfg.signalURL("metrics")
	timeout := cfg.timeout()
	retry := struct {
		Enabled                                      bool
		InitialInterval, MaxInterval, MaxElapsedTime time.Duration
	}{true, timeout / 10, timeout / 4, timeout}
	var (
		se  sdktrace.SpanExporter
		me  sdkmetric.Exporter
		err error
	)
	if cfg.protocol() == ProtocolHTTP {
		se, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(traces), otlptracehttp.WithTimeout(timeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig(retry)))
		if err == nil {
			me, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(metrics), otlpmetrichttp.WithTemporalitySelector(delta),
				otlpmetrichttp.WithTimeout(timeout), otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig(retry)))
		}
	} else {
		se, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(traces), otlptracegrpc.WithTimeout(timeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig(retry)))
		if err == nil {
			me, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(metrics), otlpmetricgrpc.WithTemporalitySelector(delta),
				otlpmetricgrpc.WithTimeout(timeout), otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig(retry)))
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("otlp: %s: %w", cfg.Endpoint, err)
	}
	return se, me, nil
}

// ExportApp sends the spans of an attempt that have ended and were not
// sent before, and its metrics, then flushes. Call it again as a running
// application progresses: each job, stage and task span goes out once, the
// application span when the application has ended.
func (e *Exporter) ExportApp(ctx context.Context, a *model.Attempt, r *analyze.Result) error {
	key := a.AppID + "\x00" + a.AttemptID
	e.mu.Lock()
	sent := e.sent[key]
	if sent == nil {
		sent = map[string]bool{}
		e.sent[key] = sent
	}
	newAppTrace(e.tracer, a, r, e.cfg.samplingRatio(), e.cfg.TaskSamplingRatio, sent).export()
	if r.Completed {
		delete(e.sent, key)
	}
	e.mu.Unlock()
	e.inst.record(ctx, a, r)
	return e.Flush(ctx)
}

// Forget drops what the exporter remembers of a running attempt that will
// not be exported again (its log vanished, or serve stops watching it).
func (e *Exporter) Forget(appID, attemptID string) {
	e.mu.Lock()
	delete(e.sent, appID+"\x00"+attemptID)
	e.mu.Unlock()
}

// Sent lists the spans of a running attempt that were exported (the
// application span once it ended, "job/ID", "stage/ID.ATTEMPT"), so that
// serve can store them with the log's resume state.
func (e *Exporter) Sent(appID, attemptID string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for k := range e.sent[appID+"\x00"+attemptID] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Resume takes what Sent listed before a restart: those spans are not
// exported again.
func (e *Exporter) Resume(appID, attemptID string, sent []string) {
	key := appID + "\x00" + attemptID
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.sent[key]
	if m == nil {
		m = map[string]bool{}
		e.sent[key] = m
	}
	for _, k := range sent {
		m[k] = true
	}
}

// Flush sends everything pending now.
func (e *Exporter) Flush(ctx context.Context) error {
	return errors.Join(e.tp.ForceFlush(ctx), e.mp.ForceFlush(ctx))
}

// Shutdown flushes and closes the connections.
func (e *Exporter) Shutdown(ctx context.Context) error {
	return errors.Join(e.tp.Shutdown(ctx), e.mp.Shutdown(ctx))
}

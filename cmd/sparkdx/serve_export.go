package main

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// serveExports sends what serve reads to OTLP and Delta Lake. It is
// ingest's Listener (running apps' ended spans after each tail step,
// finished apps once: their last spans and their Delta rows) and the
// server's MetricsSink (agent samples to the samples table).
type serveExports struct {
	st     *store.Store
	logger *slog.Logger
	otlp   *otlp.Exporter // nil without an OTLP endpoint
	tables *delta.Tables  // nil without --delta
	red    *delta.Redactor
	// samples batches agent samples into few large files.
	samples *delta.Batcher[delta.SampleRow]

	// Failures are counted and logged once per kind, not per app.
	otlpErrors, deltaErrors atomic.Int64

	mu      sync.Mutex
	unsaved map[string]bool // finished logs whose Delta write failed, by key
}

// Progress implements ingest.Listener: the spans of jobs and stages that
// ended since the last step go out (the exporter remembers what it sent).
func (x *serveExports) Progress(ctx context.Context, in ingest.Input) {
	// An application that ended while its log is still .inprogress waits
	// for Finished: the exporter forgets what it sent once the application
	// span is out, so exporting it here too would send every span twice.
	if x.otlp == nil || in.Attempt.Completed {
		return
	}
	if err := x.otlp.ExportApp(ctx, in.Attempt, analyze.Analyze(in.Attempt)); err != nil {
		x.fail(&x.otlpErrors, "otlp export", in, err)
	}
}

// Finished implements ingest.Listener.
func (x *serveExports) Finished(ctx context.Context, in ingest.Input) {
	if x.otlp == nil && x.tables == nil {
		return
	}
	an := server.Analyze(x.st, in)
	a := in.Attempt
	if x.otlp != nil {
		if err := x.otlp.ExportApp(ctx, a, an.Result); err != nil {
			x.fail(&x.otlpErrors, "otlp export", in, err)
		}
		if !an.Result.Completed {
			// A log that ended without an application end (driver lost)
			// is not exported again: drop what was remembered of it.
			x.otlp.Forget(a.AppID, a.AttemptID)
		}
	}
	if x.tables != nil {
		if _, err := x.tables.WriteApp(ctx, delta.RowsOf(a, an.Report, x.red, in.Now)); err != nil {
			x.fail(&x.deltaErrors, "delta write", in, err)
			x.mu.Lock()
			x.unsaved[ingest.Key(in.Log.Path)] = true
			x.mu.Unlock()
		}
	}
}

// backfill writes to Delta the finished logs that are not there: those
// analysed before --delta was given, and those whose write failed. Their
// models are replayed on demand, one at a time.
func (x *serveExports) backfill(ctx context.Context, in *ingest.Ingester, startup bool) {
	x.mu.Lock()
	retry := x.unsaved
	x.unsaved = map[string]bool{}
	x.mu.Unlock()
	for _, rec := range in.Records() {
		if ctx.Err() != nil {
			return
		}
		if !rec.Done || rec.AppID == "" || rec.Error != "" || !(retry[rec.Key] || startup) || x.tables.HasApp(rec.AppID, rec.AttemptID) {
			continue
		}
		a, release, err := in.Attempt(ctx, rec.Key)
		if err != nil {
			x.logger.Warn("delta backfill", "log", rec.Path, "err", err)
			continue
		}
		input := ingest.Input{Attempt: a, ModTime: time.Unix(0, rec.ModTime), Now: time.Now(),
			Log: report.Log{Path: rec.Path, Codec: rec.Codec, Bytes: rec.Size, Events: rec.Events, BadLines: rec.Bad}}
		_, err = x.tables.WriteApp(ctx, delta.RowsOf(a, server.Analyze(x.st, input).Report, x.red, input.Now))
		release()
		if err != nil {
			x.fail(&x.deltaErrors, "delta write", input, err)
			x.mu.Lock()
			x.unsaved[rec.Key] = true
			x.mu.Unlock()
		}
	}
}

// Forgotten implements ingest.Listener.
func (x *serveExports) Forgotten(rec store.LogRecord) {
	if x.otlp != nil {
		x.otlp.Forget(rec.AppID, rec.AttemptID)
	}
}

// AddMetrics implements server.MetricsSink.
func (x *serveExports) AddMetrics(ctx context.Context, req *metricpb.MetricsData) error {
	if x.samples == nil {
		return nil
	}
	return x.samples.Add(ctx, delta.SampleRowsOTLP(req, time.Now())...)
}

// fail logs the first failure of a kind and every hundredth after it.
func (x *serveExports) fail(n *atomic.Int64, what string, in ingest.Input, err error) {
	if c := n.Add(1); c == 1 || c%100 == 0 {
		x.logger.Warn(what, "log", in.Log.Path, "app", in.Attempt.AppID, "failures", c, "err", err)
	}
}

// run exports serve's health every interval and flushes the samples
// batcher until ctx ends, then flushes and shuts the exporter down.
func (x *serveExports) run(ctx context.Context, in *ingest.Ingester, interval time.Duration) {
	done := make(chan struct{})
	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	go func() {
		defer close(done)
		if x.samples != nil {
			if err := x.samples.Run(ctx, final); err != nil {
				x.logger.Warn("delta samples: final flush", "err", err, "rows", x.samples.Pending())
			}
		}
	}()
	if x.tables != nil {
		backfilled := make(chan struct{})
		go func() {
			defer close(backfilled)
			x.backfill(ctx, in, true)
			t := time.NewTicker(time.Minute)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					x.backfill(ctx, in, false)
				}
			}
		}()
		defer func() { <-backfilled }()
	}
	if x.otlp != nil {
		t := time.NewTicker(interval)
		defer t.Stop()
	loop:
		for {
			select {
			case <-ctx.Done():
				break loop
			case <-t.C:
				st := in.Status()
				h := otlp.Health{IngestLag: time.Duration(st.LagMs) * time.Millisecond, QueueDepth: st.QueueDepth, Logs: st.Logs}
				if err := x.otlp.ExportHealth(ctx, h); err != nil && ctx.Err() == nil {
					x.otlpErrors.Add(1)
				}
			}
		}
		if err := x.otlp.Shutdown(final); err != nil {
			x.logger.Warn("otlp shutdown", "err", err)
		}
	}
	<-done
}

var _ server.MetricsSink = (*serveExports)(nil)
var _ ingest.Listener = (*serveExports)(nil)

// Package exports sends what serve reads to OpenTelemetry and Delta Lake:
// the traces of running and finished applications, their Delta rows, agent
// samples, with pauses while a collector is down and retries of what
// failed, and Delta maintenance on a schedule.
package exports

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// Exports sends what serve reads to OTLP and Delta Lake. It is
// ingest's Listener (running apps' ended spans after each tail step,
// finished apps once: their last spans and their Delta rows) and the
// server's MetricsSink (agent samples to the samples table).
//
// Exports run on ingest's workers; a collector or store that fails must
// not hold them for a timeout per log, so after an OTLP failure exports
// pause for otlpPause, and what was missed is sent again by retry.
type Exports struct {
	st     *store.Store
	logger *slog.Logger
	otlp   *otlp.Exporter // nil without an OTLP endpoint
	tables *delta.Tables  // nil without --delta
	red    *delta.Redactor
	// samples batches agent samples into few large files.
	samples *delta.Batcher[delta.SampleRow]

	otlpPause     time.Duration // default 30s
	retryEvery    time.Duration // default 1m
	maintainEvery time.Duration // Delta maintenance (optimize, vacuum, log cleanup); 0: never
	liveEvery     time.Duration // running apps' ended jobs and stages to Delta; 0: never
	otlpDown      atomic.Int64  // unix ns until which OTLP exports are skipped

	// Failures are counted and logged once per kind, not per app.
	otlpErrors, otlpSkipped, deltaErrors atomic.Int64
	// appWrites and sampleWrites say how the Delta writes go, for
	// serve's /healthz and /metrics (Problems, WriteFailures).
	appWrites, sampleWrites store.WriteHealth

	mu         sync.Mutex
	unsaved    map[string]bool // finished logs whose Delta write failed, by key
	unexported map[string]bool // finished logs whose trace did not go out, by key
	// newest is, by running log, the newest job and stage completion
	// times seen at the last live turn (delta.LiveMark).
	newest map[string][2]int64
}

// Config says where exports go; a zero field turns that export off.
type Config struct {
	OTLP     *otlp.Exporter // traces and serve's health
	Tables   *delta.Tables  // finished applications and agent samples
	Redactor *delta.Redactor
	// SamplesFlush is how often buffered agent samples are committed.
	SamplesFlush time.Duration
	// MaintainEvery is how often the tables are compacted, vacuumed and
	// their log cleaned; 0 never.
	MaintainEvery time.Duration
	// LiveEvery is how often the ended jobs and stages of running
	// applications are written (the rest at their end); 0 never.
	LiveEvery time.Duration
}

// New returns the exports of cfg for serve's store; Run drives them.
func New(st *store.Store, logger *slog.Logger, cfg Config) *Exports {
	x := &Exports{st: st, logger: logger, otlp: cfg.OTLP, tables: cfg.Tables, red: cfg.Redactor,
		maintainEvery: cfg.MaintainEvery, liveEvery: cfg.LiveEvery, newest: map[string][2]int64{}, otlpPause: 30 * time.Second, retryEvery: time.Minute,
		unsaved: map[string]bool{}, unexported: map[string]bool{}}
	if cfg.Tables != nil {
		x.samples = delta.NewBatcher(cfg.Tables.Samples, 0, cfg.SamplesFlush)
		x.samples.OnFlush = x.sampleWrites.Record
	}
	return x
}

// Problems implements server.ExportHealth: the Delta tables whose last
// write failed.
func (x *Exports) Problems() []string {
	var out []string
	for _, p := range []string{x.appWrites.Problem("Delta (--delta) application rows"), x.sampleWrites.Problem("Delta (--delta) agent samples")} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// WriteFailures implements server.ExportHealth: failed Delta writes by
// table, and the agent samples dropped while the samples table failed.
func (x *Exports) WriteFailures() (apps, samples, samplesDropped int64) {
	if x.samples != nil {
		samplesDropped = x.samples.Dropped()
	}
	return x.appWrites.Failures(), x.sampleWrites.Failures(), samplesDropped
}

// Progress implements ingest.Listener: the spans of jobs and stages that
// ended since the last step go out (the exporter remembers what it sent;
// what a pause skips goes out at a later step).
func (x *Exports) Progress(ctx context.Context, in ingest.Input) {
	// An application that ended while its log is still .inprogress waits
	// for Finished: the exporter forgets what it sent once the application
	// span is out, so exporting it here too would send every span twice.
	if x.otlp == nil || in.Attempt.Completed || x.paused() {
		return
	}
	x.exportTrace(ctx, in, analyze.Analyze(in.Attempt))
}

// WantsProgress implements ingest.ProgressFilter: Progress exports only
// OTLP traces, and not while the exports pause.
func (x *Exports) WantsProgress() bool { return x.otlp != nil && !x.paused() }

// SaveState implements ingest.ResumableListener: the spans of a running
// application already sent, so that a restart does not send them again.
func (x *Exports) SaveState(in ingest.Input) []byte {
	if x.otlp == nil {
		return nil
	}
	b, err := json.Marshal(x.otlp.Sent(in.Attempt.AppID, in.Attempt.AttemptID))
	if err != nil {
		return nil
	}
	return b
}

// RestoreState implements ingest.ResumableListener.
func (x *Exports) RestoreState(in ingest.Input, state []byte) {
	var sent []string
	if x.otlp == nil || json.Unmarshal(state, &sent) != nil {
		return
	}
	x.otlp.Resume(in.Attempt.AppID, in.Attempt.AttemptID, sent)
}

// Finished implements ingest.Listener: a finished application's trace and
// its Delta rows, once.
func (x *Exports) Finished(ctx context.Context, in ingest.Input) {
	if x.otlp == nil && x.tables == nil {
		return
	}
	an := server.Analyze(x.st, in)
	key := ingest.Key(in.Log.Path)
	if x.otlp != nil {
		if x.paused() || !x.exportTrace(ctx, in, an.Result) {
			x.mark(x.unexported, key)
		}
	}
	if x.tables != nil {
		_, err := x.tables.WriteApp(ctx, delta.RowsOf(in.Attempt, an.Report, x.red, in.Now))
		x.appWrites.Record(err)
		if err != nil {
			x.fail(&x.deltaErrors, "delta write", in, err)
			x.mark(x.unsaved, key)
		}
	}
}

// exportTrace sends an attempt's trace and says whether it went out; a
// failure pauses OTLP exports.
func (x *Exports) exportTrace(ctx context.Context, in ingest.Input, r *analyze.Result) bool {
	a := in.Attempt
	err := x.otlp.ExportApp(ctx, a, r)
	if !r.Completed && !in.InProgress {
		// A log that ended without an application end (driver lost) is
		// not exported again: drop what was remembered of it.
		x.otlp.Forget(a.AppID, a.AttemptID)
	}
	if err != nil {
		x.otlpDown.Store(time.Now().Add(x.otlpPause).UnixNano())
		x.fail(&x.otlpErrors, "otlp export", in, err)
		return false
	}
	return true
}

// paused says whether OTLP exports wait after a failure, counting a skip.
func (x *Exports) paused() bool {
	if time.Now().UnixNano() < x.otlpDown.Load() {
		x.otlpSkipped.Add(1)
		return true
	}
	return false
}

func (x *Exports) mark(set map[string]bool, key string) {
	x.mu.Lock()
	set[key] = true
	x.mu.Unlock()
}

// take empties a set and returns what it held.
func (x *Exports) take(set *map[string]bool) map[string]bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := *set
	*set = map[string]bool{}
	return out
}

// retry sends again what failed: finished logs whose trace did not go out
// and, for Delta, whose write failed, plus at startup the finished logs the
// tables lack (analysed before --delta was given). Models are replayed on
// demand, one log at a time.
func (x *Exports) retry(ctx context.Context, in *ingest.Ingester, startup bool) {
	var traces, rows map[string]bool
	if x.otlp != nil && !x.paused() {
		traces = x.take(&x.unexported)
	}
	if x.tables != nil {
		rows = x.take(&x.unsaved)
	}
	for _, rec := range in.Records() {
		if ctx.Err() != nil {
			return
		}
		if !rec.Done || rec.AppID == "" || rec.Error != "" {
			continue
		}
		trace := traces[rec.Key]
		write := x.tables != nil && (rows[rec.Key] || startup) && !x.tables.HasApp(rec.AppID, rec.AttemptID)
		if !trace && !write {
			continue
		}
		a, release, err := in.Attempt(ctx, rec.Key)
		if err != nil {
			x.logger.Warn("export retry", "log", rec.Path, "err", err)
			continue
		}
		input := ingest.Input{Attempt: a, ModTime: time.Unix(0, rec.ModTime), Now: time.Now(),
			Log: reportv1.Log{Path: rec.Path, Codec: rec.Codec, Bytes: rec.Size, Events: rec.Events, BadLines: rec.Bad}}
		an := server.Analyze(x.st, input)
		if trace && (x.paused() || !x.exportTrace(ctx, input, an.Result)) {
			x.mark(x.unexported, rec.Key)
		}
		if write {
			_, err := x.tables.WriteApp(ctx, delta.RowsOf(a, an.Report, x.red, input.Now))
			x.appWrites.Record(err)
			if err != nil {
				x.fail(&x.deltaErrors, "delta write", input, err)
				x.mark(x.unsaved, rec.Key)
			}
		}
		release()
	}
}

// Forgotten implements ingest.Listener.
func (x *Exports) Forgotten(rec store.LogRecord) {
	if x.otlp != nil {
		x.otlp.Forget(rec.AppID, rec.AttemptID)
	}
}

// AddMetrics implements otlpin.MetricsSink.
func (x *Exports) AddMetrics(ctx context.Context, req *metricpb.MetricsData) error {
	if x.samples == nil {
		return nil
	}
	return x.samples.Add(ctx, delta.OTLPSampleRows(req, time.Now())...)
}

// fail logs the first failure of a kind and every hundredth after it.
func (x *Exports) fail(n *atomic.Int64, what string, in ingest.Input, err error) {
	if c := n.Add(1); c == 1 || c%100 == 0 {
		x.logger.Warn(what, "log", in.Log.Path, "app", in.Attempt.AppID, "failures", c,
			"skippedWhilePaused", x.otlpSkipped.Load(), "err", err)
	}
}

// Run exports serve's health every interval, flushes the samples batcher
// and retries failed exports until ctx ends, then flushes and shuts the
// exporter down.
func (x *Exports) Run(ctx context.Context, in *ingest.Ingester, interval time.Duration) {
	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	if x.samples != nil {
		wg.Go(func() {
			if err := x.samples.Run(ctx, final); err != nil {
				x.logger.Warn("delta samples: final flush", "err", err, "rows", x.samples.Pending())
			}
		})
	}
	if x.tables != nil && x.maintainEvery > 0 {
		wg.Go(func() { every(ctx, x.maintainEvery, func() { x.maintain(ctx) }) })
	}
	if x.tables != nil && x.liveEvery > 0 {
		wg.Go(func() { every(ctx, x.liveEvery, func() { x.writeLive(ctx, in) }) })
	}
	if x.otlp != nil || x.tables != nil {
		wg.Go(func() {
			x.retry(ctx, in, true)
			every(ctx, x.retryEvery, func() { x.retry(ctx, in, false) })
		})
	}
	if x.otlp != nil {
		every(ctx, interval, func() {
			st := in.Status()
			h := otlp.Health{IngestLag: time.Duration(st.LagMs) * time.Millisecond, QueueDepth: st.QueueDepth, Logs: st.Logs}
			if err := x.otlp.ExportHealth(ctx, h); err != nil && ctx.Err() == nil {
				x.otlpErrors.Add(1)
			}
		})
	}
	wg.Wait()
	if x.otlp != nil {
		if err := x.otlp.Shutdown(final); err != nil {
			x.logger.Warn("otlp shutdown", "err", err)
		}
	}
}

// every calls f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// maintain runs one round of Delta maintenance and logs what it did.
func (x *Exports) maintain(ctx context.Context) {
	for _, r := range delta.Maintain(ctx, x.tables.Each()) {
		if r.Err != nil {
			if ctx.Err() == nil {
				x.logger.Warn("delta maintenance failed; the next round retries", "table", r.Name, "err", r.Err)
			}
			continue
		}
		if r.Optimize.FilesRemoved+len(r.Vacuum.Deleted)+len(r.CleanLog.Deleted) > 0 {
			x.logger.Info("delta maintenance", "table", r.Name, "filesBefore", r.Optimize.FilesBefore,
				"filesAfter", r.Optimize.FilesAfter, "vacuumed", len(r.Vacuum.Deleted), "logEntriesDeleted", len(r.CleanLog.Deleted))
		}
	}
}

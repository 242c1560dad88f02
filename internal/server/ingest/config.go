package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/shard"
)

// What serve gives ingest: its configuration and the functions and
// listeners ingest calls with each log it reads.

// Input is what an analysis sees of one log.
type Input struct {
	Attempt    *model.Attempt
	Log        reportv1.Log
	InProgress bool      // the log is still being written
	ModTime    time.Time // of the log's newest part
	Now        time.Time
	// Result is the attempt's analysis when it was computed already: a
	// finished log is analysed once for its report, views and exports.
	Result *analyze.Result
}

// Analysis is in.Result, or the attempt analysed now when it is nil.
func (in Input) Analysis() *analyze.Result {
	if in.Result != nil {
		return in.Result
	}
	return analyze.Analyze(in.Attempt)
}

// AnalyzeFunc turns a replayed attempt into its sparkdx.report/v1 JSON.
type AnalyzeFunc func(in Input) ([]byte, error)

// ViewsFunc computes what the server shows of a finished log, by name, so
// that it can be stored and served without replaying the log.
type ViewsFunc func(in Input) (map[string][]byte, error)

// Listener hears what ingest reads, so that serve can export it (OTLP,
// Delta) without ingest knowing the exporters. Calls come from the worker
// that holds the log, one at a time per log; the attempt does not change
// during a call and must not be kept after it. Forgotten is called under
// ingest's index lock: it must return at once.
type Listener interface {
	// Progress: ingest caught up with a running log and its model grew.
	Progress(ctx context.Context, in Input)
	// Finished: a log was read to its end and its analysis stored.
	Finished(ctx context.Context, in Input)
	// Forgotten: a log is gone (deleted, or aged out by Spark's cleaner).
	Forgotten(rec store.LogRecord)
}

// ProgressFilter is a Listener that says whether it wants Progress now:
// a running log's model is unpacked for Progress (every finished task, in
// a copy of the stages), which is wasted on a listener that ignores it.
type ProgressFilter interface {
	WantsProgress() bool
}

func wantsProgress(l Listener) bool {
	f, ok := l.(ProgressFilter)
	return !ok || f.WantsProgress()
}

// ResumableListener is a Listener that remembers something of a running
// log from one Progress call to the next (the OTLP exporter: which spans
// went out). What SaveState returns is stored with the log's resume state
// and handed to RestoreState when a restart continues the log, so the
// restart neither repeats nor loses what the listener did. Both are called
// by the worker holding the log, after its Progress calls.
type ResumableListener interface {
	Listener
	SaveState(in Input) []byte
	RestoreState(in Input, state []byte)
}

// Config configures an Ingester.
type Config struct {
	Roots     []string // directories (or files) of event logs; s3:// URLs allowed
	Store     *store.Store
	Open      eventlog.OpenOptions
	Poll      time.Duration // rescan interval; default 2s
	Workers   int           // default half of GOMAXPROCS (at least 1): leave CPU to readers
	Queue     int           // queue capacity; default 1024
	MaxBatch  int64         // bytes one worker turn reads from a log; default 8 MiB
	CacheSize int           // finished models kept in memory; default 32
	// Unpacked bounds the running logs whose model stays unpacked for
	// the next reader (each the size of every finished task unpacked);
	// default 4.
	Unpacked  int
	Redaction *redact.Rules // applied to every event before it is kept; default redact.Default()
	Analyze   AnalyzeFunc   // default ReportJSON
	Views     ViewsFunc     // named views stored with the analysis; none when nil
	Logger    *slog.Logger
	Watch     bool          // use inotify on local directories
	Retention time.Duration // agent samples older than this are deleted; default 7 days
	Listener  Listener      // told of progress, finished and forgotten logs; none when nil
	// SnapshotEvery is how often a running log's replay state is stored
	// so that a restart resumes it (and at shutdown); default 30s. A kill
	// -9 makes the restart read again what was read since.
	SnapshotEvery time.Duration
	// Apps bounds the logs kept (age, number of finished ones); the zero
	// value keeps every log.
	Apps Retention
	// SlowAfter bounds how long a worker replays one finished log before
	// handing it to the slow lane, a worker of its own, so that a huge or
	// pathological log (a gzip of half a billion short lines) never holds
	// the others back; default 30s.
	SlowAfter time.Duration
	// Shard, when enabled, keeps only the logs of this instance's shard:
	// the others are passed over by name, before any of them is read, and
	// counted (Status.OtherShard). The zero Shard takes every log.
	Shard shard.Spec
}

// Validate checks the configuration and fills defaults.
func (c *Config) Validate() error {
	if len(c.Roots) == 0 {
		return errors.New("ingest: no event log directory")
	}
	if err := c.Shard.Validate(); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if c.Store == nil {
		return errors.New("ingest: no store")
	}
	if c.Poll <= 0 {
		c.Poll = 2 * time.Second
	}
	if c.Workers <= 0 {
		c.Workers = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if c.Queue <= 0 {
		c.Queue = 1024
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 8 << 20
	}
	if c.CacheSize <= 0 {
		c.CacheSize = 32
	}
	if c.Unpacked <= 0 {
		c.Unpacked = 4
	}
	if c.Redaction == nil {
		c.Redaction = redact.Default()
	}
	if c.Analyze == nil {
		c.Analyze = ReportJSON
	}
	if c.SlowAfter <= 0 {
		c.SlowAfter = 30 * time.Second
	}
	if c.SnapshotEvery <= 0 {
		c.SnapshotEvery = 30 * time.Second
	}
	if c.Retention <= 0 {
		c.Retention = 7 * 24 * time.Hour
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// ReportJSON is the default AnalyzeFunc: the sparkdx.report/v1 document
// with every diagnose rule, as `sparkdx analyze --format json` writes it.
func ReportJSON(in Input) ([]byte, error) {
	return json.Marshal(pipeline.Diagnose(in.Attempt, in.Result, in.Source(), nil).Report)
}

// Source is where the input was read from, for the pipeline.
func (in Input) Source() pipeline.Source {
	return pipeline.Source{Log: in.Log, InProgress: in.InProgress, ModTime: in.ModTime, Now: in.Now}
}

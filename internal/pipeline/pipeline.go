// Package pipeline is the one path from an event log to a diagnosis:
// replay → analyze → diagnose → report. `sparkdx analyze`, `sparkdx diff`,
// serve's ingest and pages, and the scenario checks all go through it, so
// one log gives the same findings and the same report everywhere.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

// Source is where an attempt was read from: the report's log section, and
// what the log-aware rules (incomplete-app) read.
type Source struct {
	Log        reportv1.Log
	InProgress bool      // the log is still being written
	ModTime    time.Time // of the log's newest part
	Now        time.Time // the time the diagnosis is made at; zero: the log's own end
	// Summaries are the committers' _SUCCESS summaries read for the
	// attempt's outputs (analyze --output-summaries), joined to its
	// writes by Diagnose.
	Summaries []*s3a.Summary
}

// LiveWithin is how recently a log still being written must have changed
// for its application to be taken as running, its phases and duration
// going on until Now. A driver writes nothing while it waits for
// executors, so the bound is generous; past it the driver is presumed dead
// and the application ends at its last event (incomplete-app says which).
const LiveWithin = 6 * time.Hour

// LiveNow is the time a running application is analysed up to (epoch
// ms): src.Now when its log is still being written, was written within
// LiveWithin and its last event is as recent (an old log copied today is
// not a running application); else 0.
func LiveNow(a *model.Attempt, src Source) int64 {
	if a.Completed || !src.InProgress || src.Now.IsZero() || src.ModTime.IsZero() || src.Now.Sub(src.ModTime) > LiveWithin {
		return 0
	}
	now := src.Now.UnixMilli()
	if now-analyze.LastEventTime(a) > LiveWithin.Milliseconds() {
		return 0
	}
	return now
}

// Diagnosis is one attempt analysed, diagnosed and reported.
type Diagnosis struct {
	Attempt  *model.Attempt
	Result   *analyze.Result
	Findings []diagnose.Finding
	Report   *reportv1.Report // the sparkdx.report/v1 document
}

// Diagnose analyses a (unless res, its analysis, is given already) — up
// to now when it runs (LiveNow) —, runs every rule — the
// agent-aware ones with agent's driver samples when not nil — and builds
// the report.
func Diagnose(a *model.Attempt, res *analyze.Result, src Source, agent *diagnose.AgentData) *Diagnosis {
	if res == nil {
		res = analyze.AnalyzeAt(a, LiveNow(a, src))
	}
	var commits []analyze.CommittedWrite
	if len(src.Summaries) > 0 {
		commits = analyze.JoinSummaries(analyze.OutputWrites(a, res), src.Summaries)
	}
	findings := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res, Agent: agent, Commits: commits, Log: diagnose.LogInfo{
		InProgress: src.InProgress, Truncated: src.Log.Truncated, ModTime: src.ModTime, Now: src.Now}}, diagnose.All)
	rep := reportv1.Build(a, res, findings, src.Log)
	rep.AddCommits(commits)
	return &Diagnosis{Attempt: a, Result: res, Findings: findings, Report: rep}
}

// ErrNotSpark is the error for a log without SparkListenerApplicationStart.
var ErrNotSpark = errors.New("no SparkListenerApplicationStart: not a Spark event log")

// Replay replays one log eventlog.Open found and says what was read. A
// malformed line's error (with opts.Strict) names the log; a log with no
// application start is ErrNotSpark, wrapped with its path.
func Replay(ctx context.Context, l *eventlog.Log, opts replay.Options) (*model.Attempt, Source, *replay.Stats, error) {
	a, stats, err := replay.Log(ctx, l, opts)
	if err != nil {
		if le, ok := errors.AsType[*replay.LineError](err); ok {
			le.Name = l.Path
		}
		return nil, Source{}, stats, err
	}
	if a.AppID == "" {
		return nil, Source{}, stats, fmt.Errorf("%s: %w", l.Path, ErrNotSpark)
	}
	src := Source{
		Log: reportv1.Log{Path: l.Path, Codec: string(l.Codec), Bytes: stats.Bytes, Events: stats.Events,
			BadLines: stats.BadLines, UnknownEvents: stats.Unknown, Truncated: stats.Truncated},
		InProgress: l.InProgress, ModTime: l.ModTime,
	}
	return a, src, stats, nil
}

package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// This file is the read side: what the HTTP server asks of the ingester.

// Status reports the queue and counters.
func (in *Ingester) Status() Status {
	s := Status{QueueDepth: len(in.queue), QueueCap: cap(in.queue),
		Scans: in.stats.Scans.Load(), ScanErrors: in.stats.ScanErrors.Load(), Deferred: in.stats.Deferred.Load(),
		Processed: in.stats.Processed.Load(), Errors: in.stats.Errors.Load(),
		Bytes: in.stats.Bytes.Load(), Events: in.stats.Events.Load(), InFlight: in.stats.InFlight.Load(),
		Resumed: in.stats.Resumed.Load(), Saves: in.stats.Saves.Load(), SaveBytes: in.stats.SaveBytes.Load(),
		SaveMs: float64(in.stats.SaveNanos.Load()) / 1e6, Replaced: in.stats.Replaced.Load(),
		SlowLane: in.stats.SlowLane.Load(), Expired: in.stats.Expired.Load(), OtherShard: in.otherShard.Load()}
	in.mu.Lock()
	s.Scanned = in.scanned
	now := time.Now()
	for _, e := range in.entries {
		s.Logs++
		if e.sched.scheduled {
			s.LagMs = max(s.LagMs, now.Sub(e.sched.queuedAt).Milliseconds())
		}
		e.rec.read(func(r *store.LogRecord) {
			s.BadLines += r.Bad
			s.Impossible += r.Impossible
			switch {
			case r.Done:
				s.Done++
			case r.AppID != "":
				s.Running++
			}
		})
	}
	in.mu.Unlock()
	return s
}

// Select returns copies of the records keep accepts, in no order, and the
// number of logs known. keep sees each record under its lock and must not
// keep the pointer: over a fleet of 100,000 logs, copying and sorting every
// record (Records) to keep a few hundred took most of a /metrics scrape.
func (in *Ingester) Select(keep func(r *store.LogRecord) bool) (out []store.LogRecord, total int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	losers := in.shadowedLocked()
	for key, e := range in.entries {
		if _, lost := losers[key]; lost {
			continue
		}
		e.rec.read(func(r *store.LogRecord) {
			if keep(r) {
				out = append(out, *r)
			}
		})
	}
	return out, len(in.entries)
}

// Records returns a copy of every log's record, by key, but those of
// logs whose attempt another log holds and wins (duplicates.go).
func (in *Ingester) Records() []store.LogRecord {
	in.mu.Lock()
	losers := in.shadowedLocked()
	out := make([]store.LogRecord, 0, len(in.entries))
	for key, e := range in.entries {
		if _, lost := losers[key]; !lost {
			out = append(out, e.rec.get())
		}
	}
	in.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func (in *Ingester) entry(key string) *logEntry {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.entries[key]
}

// ErrUnknownLog is returned for a key the ingester does not know.
var ErrUnknownLog = errors.New("ingest: unknown log")

// ErrNotReady is returned for a log not read yet.
var ErrNotReady = errors.New("ingest: log not read yet")

// Attempt returns a log's replayed attempt and a release function to call
// when done reading it; the attempt does not change until then. A finished
// log's model is replayed on demand when not cached.
func (in *Ingester) Attempt(ctx context.Context, key string) (*model.Attempt, func(), error) {
	e := in.entry(key)
	if e == nil {
		return nil, nil, ErrUnknownLog
	}
	if a, release, ok, err := e.tailModel(&in.unpacked); ok {
		return a, release, err
	}
	rec := e.rec.get()
	if !rec.Done || rec.AppID == "" {
		return nil, nil, ErrNotReady
	}
	if a := in.cache.get(key); a != nil {
		return a, func() {}, nil
	}
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	if a := in.cache.get(key); a != nil {
		return a, func() {}, nil
	}
	if a, release, ok, err := e.tailModel(&in.unpacked); ok { // started tailing meanwhile
		return a, release, err
	}
	logs, err := eventlog.Open(ctx, rec.Path, in.cfg.Open)
	if err != nil {
		return nil, nil, err
	}
	if len(logs) != 1 {
		return nil, nil, fmt.Errorf("ingest: %s: %d logs, want 1", rec.Path, len(logs))
	}
	a, _, err := replay.Log(ctx, logs[0], replay.Options{Workers: 1, Redaction: in.cfg.Redaction})
	if err != nil {
		return nil, nil, err
	}
	in.cache.put(key, a)
	return a, func() {}, nil
}

// tailModel returns the model of the log being tailed, its finished tasks
// unpacked, with the release of the read lock it holds; ok is false when
// the log is not being tailed. An unpacked model is kept for the next
// readers, in set.
func (e *logEntry) tailModel(set *unpackedSet) (a *model.Attempt, release func(), ok bool, err error) {
	e.mu.RLock()
	t := e.tail
	if t == nil {
		e.mu.RUnlock()
		return nil, nil, false, nil
	}
	e.unpackMu.Lock()
	defer e.unpackMu.Unlock()
	if e.unpacked.of == t {
		return e.unpacked.a, e.mu.RUnlock, true, nil
	}
	a, err = t.Model()
	if err != nil {
		e.mu.RUnlock()
		return nil, nil, true, fmt.Errorf("ingest: %s: %w", e.key, err)
	}
	e.unpacked = unpackedModel{of: t, a: a}
	set.add(e)
	return a, e.mu.RUnlock, true, nil
}

// View returns one stored view of a finished log.
func (in *Ingester) View(key, name string) ([]byte, error) {
	if in.cfg.Views == nil {
		return nil, store.ErrNotFound
	}
	return in.cfg.Store.View(key, name)
}

// Report returns a log's sparkdx.report/v1 JSON: the stored analysis of a
// finished log, or one computed now for a running one (or for a finished
// one whose analysis is not stored yet: its model answers first).
func (in *Ingester) Report(ctx context.Context, key string) ([]byte, error) {
	e := in.entry(key)
	if e == nil {
		return nil, ErrUnknownLog
	}
	rec := e.rec.get()
	done := rec.Done
	if done {
		b, err := in.cfg.Store.Report(key)
		if !errors.Is(err, store.ErrNotFound) || rec.AppID == "" || rec.Error != "" {
			return b, err
		}
	}
	a, release, err := in.Attempt(ctx, key)
	if err != nil {
		return nil, err
	}
	defer release()
	rec = e.rec.get()
	return in.cfg.Analyze(Input{Attempt: a, Log: reportLog(rec, nil), InProgress: !done,
		ModTime: time.Unix(0, rec.ModTime), Now: time.Now()})
}

func reportLog(rec store.LogRecord, st *replay.Stats) reportv1.Log {
	l := reportv1.Log{Path: rec.Path, Codec: rec.Codec, Bytes: rec.Size, Events: rec.Events, BadLines: rec.Bad}
	if st != nil {
		l.Bytes, l.Events, l.BadLines, l.UnknownEvents, l.Truncated = st.Bytes, st.Events, st.BadLines, st.Unknown, st.Truncated
	}
	return l
}

// LogFiles walks the stored files of the log at path (local or S3, as the
// ingester reaches them), for the raw-logs zip.
func (in *Ingester) LogFiles(ctx context.Context, path string, fn func(name string, r io.Reader) error) error {
	return eventlog.WalkFiles(ctx, path, in.cfg.Open, fn)
}

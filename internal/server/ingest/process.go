package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// progressEvery bounds how often a running log's offset is committed.
const progressEvery = 5 * time.Second

// process does one turn of work on e and says whether more remains.
func (in *Ingester) process(ctx context.Context, e *Entry) (again bool) {
	in.mu.Lock()
	l := e.next
	in.mu.Unlock()
	if l == nil {
		return false
	}
	e.mu.RLock()
	done := e.rec.Done
	e.mu.RUnlock()
	if done { // a finished log changed: start over
		e.mu.Lock()
		e.rec.Done, e.tail, e.part, e.offset = false, nil, 0, 0
		e.mu.Unlock()
	}
	if !l.InProgress && e.tail == nil {
		in.replayFinished(ctx, e, l)
		return false
	}
	again, err := in.tail(ctx, e, l)
	if err != nil && ctx.Err() == nil {
		in.stats.Errors.Add(1)
		in.cfg.Logger.Warn("tail", "log", l.Path, "err", err)
		e.mu.Lock()
		e.rec.Error = err.Error()
		e.mu.Unlock()
		return false
	}
	return again
}

// replayFinished replays a complete log in one go and stores its analysis.
func (in *Ingester) replayFinished(ctx context.Context, e *Entry, l *eventlog.Log) {
	a, st, err := eventlog.ReplayLog(ctx, l, eventlog.ReplayOptions{Workers: 1})
	if ctx.Err() != nil {
		return
	}
	if st != nil {
		in.stats.Bytes.Add(st.Bytes)
		in.stats.Events.Add(st.Events)
	}
	if err != nil {
		in.fail(e, l, err)
		return
	}
	in.redact(a)
	in.finish(e, l, a, st)
}

// finish stores the analysis of a complete log and keeps its model cached.
func (in *Ingester) finish(e *Entry, l *eventlog.Log, a *model.Attempt, st *eventlog.ReplayStats) {
	e.mu.RLock()
	rec := e.rec
	e.mu.RUnlock()
	rec = record(rec, l, a, st)
	rec.Done, rec.Error = true, ""
	var rep []byte
	if a.AppID != "" {
		var err error
		rep, err = in.cfg.Analyze(Input{Attempt: a, Log: reportLog(rec, st), InProgress: l.InProgress,
			ModTime: l.ModTime, Now: time.Now()})
		if err != nil {
			in.fail(e, l, fmt.Errorf("analyze: %w", err))
			return
		}
	}
	if err := in.cfg.Store.PutAnalysis(rec, rep); err != nil {
		in.stats.Errors.Add(1)
		in.cfg.Logger.Error("store", "log", l.Path, "err", err)
		return
	}
	if a.AppID != "" {
		in.cache.put(e.key, a)
	}
	e.mu.Lock()
	e.rec, e.tail = rec, nil
	e.mu.Unlock()
}

// fail records a log that cannot be read as done-with-error, so it is not
// retried until it changes.
func (in *Ingester) fail(e *Entry, l *eventlog.Log, err error) {
	in.stats.Errors.Add(1)
	in.cfg.Logger.Warn("ingest", "log", l.Path, "err", err)
	e.mu.Lock()
	e.rec.Path, e.rec.Name, e.rec.Size, e.rec.ModTime = l.Path, l.Name, l.Size, l.ModTime.UnixNano()
	e.rec.Error, e.rec.Done, e.tail = err.Error(), true, nil
	rec := e.rec
	e.mu.Unlock()
	if err := in.cfg.Store.PutLog(rec); err != nil {
		in.cfg.Logger.Error("store", "log", l.Path, "err", err)
	}
}

// record fills a log record from the log and its attempt.
func record(rec store.LogRecord, l *eventlog.Log, a *model.Attempt, st *eventlog.ReplayStats) store.LogRecord {
	rec.Path, rec.Name, rec.Codec, rec.Rolling = l.Path, l.Name, string(l.Codec), l.Rolling
	rec.Size, rec.ModTime = l.Size, l.ModTime.UnixNano()
	if st != nil {
		rec.Events, rec.Bad = st.Events, st.BadLines
	}
	rec.AppID, rec.AttemptID, rec.AppName, rec.User = a.AppID, a.AttemptID, a.AppName, a.SparkUser
	rec.SparkVersion, rec.StartTime, rec.EndTime, rec.Completed = a.SparkVersion, a.StartTime, a.EndTime, a.Completed
	rec.LastUpdated = a.LastUpdated
	rec.Tags = tags(a)
	rec.Stages, rec.Tasks = len(a.Stages), 0
	for _, s := range a.Stages {
		rec.Tasks += len(s.Tasks)
	}
	return rec
}

// tail reads up to MaxBatch more bytes of a log being written (or of one
// that was being written when we started reading it) and applies them.
func (in *Ingester) tail(ctx context.Context, e *Entry, l *eventlog.Log) (again bool, err error) {
	if e.tail == nil {
		t := eventlog.NewTail(eventlog.ReplayOptions{Name: l.Name})
		t.Attempt().LogPath, t.Attempt().LogName = l.Path, l.Name
		e.mu.Lock()
		e.tail, e.part, e.offset = t, 0, 0
		e.rec.Done = false
		e.mu.Unlock()
	}
	budget := in.cfg.MaxBatch
	for budget > 0 && e.part < len(l.Parts) {
		data, eof, err := readPart(ctx, l, e.part, e.offset, budget)
		if err != nil {
			return false, err
		}
		budget -= int64(len(data))
		e.offset += int64(len(data))
		if len(data) > 0 {
			b := e.tail.Decode(data)
			e.mu.Lock()
			err = e.tail.Apply(b)
			a := e.tail.Attempt()
			a.LogPath, a.LogName = l.Path, l.Name
			if !l.ModTime.IsZero() {
				a.LastUpdated = max(a.LastUpdated, l.ModTime.UnixMilli())
			}
			in.redact(a)
			e.rec = record(e.rec, l, a, e.tail.Stats())
			e.rec.Part, e.rec.Offset = e.part, e.offset
			e.mu.Unlock()
			in.stats.Bytes.Add(int64(len(data)))
			in.stats.Events.Add(int64(b.Events()))
			if err != nil {
				return false, err
			}
		}
		if !eof {
			return true, nil
		}
		if e.part == len(l.Parts)-1 {
			break
		}
		e.part, e.offset = e.part+1, 0 // a later part exists: this one is complete
	}
	if budget <= 0 {
		return true, nil
	}
	if !l.InProgress {
		e.mu.Lock()
		err := e.tail.Apply(e.tail.End())
		a := e.tail.Attempt()
		e.mu.Unlock()
		if err != nil {
			return false, err
		}
		in.finish(e, l, a, e.tail.Stats())
		return false, nil
	}
	if time.Since(e.lastProgress) > progressEvery {
		e.lastProgress = time.Now()
		e.mu.RLock()
		rec := e.rec
		e.mu.RUnlock()
		if err := in.cfg.Store.PutLog(rec); err != nil {
			return false, err
		}
	}
	return false, nil
}

// readPart reads up to max decoded bytes of part i of l, starting at
// decoded offset off; eof says the part had no more.
func readPart(ctx context.Context, l *eventlog.Log, i int, off, max int64) (data []byte, eof bool, err error) {
	p := l.Parts[i]
	var r io.Reader
	if (p.Codec == codec.None || p.Codec == "") && !eventlog.IsS3(p.Path) {
		f, err := os.Open(p.Path)
		if err != nil {
			return nil, false, fmt.Errorf("ingest: %w", err)
		}
		defer f.Close()
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return nil, false, fmt.Errorf("ingest: %s: %w", p.Path, err)
		}
		r = f
	} else {
		// Compressed parts cannot be entered mid-stream: decode from the
		// start and skip what was read.
		one := *l
		one.Parts = l.Parts[i : i+1]
		one.InProgress = l.InProgress && i == len(l.Parts)-1
		rd, err := one.NewReader(ctx)
		if err != nil {
			return nil, false, err
		}
		defer rd.Close()
		if _, err := io.CopyN(io.Discard, rd, off); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, true, nil
			}
			return nil, false, err
		}
		r = rd
	}
	data, err = io.ReadAll(io.LimitReader(r, max))
	if err != nil {
		return nil, false, fmt.Errorf("ingest: %s offset %d: %w", p.Path, off, err)
	}
	return data, int64(len(data)) < max, nil
}

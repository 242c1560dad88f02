package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// progressEvery bounds how often a running log's offset is committed.
const progressEvery = 5 * time.Second

// scratch is what a worker reuses from one turn to the next: a turn's
// bytes and their decoded events die once applied, and allocating them
// again each turn was most of what ingest allocated (5.6 KB an event on
// growing copies of the big log, its 8 MiB buffers doubled as they grew).
// It holds the largest turn seen, at most about MaxBatch and its events.
type scratch struct {
	buf   []byte
	batch *replay.TailBatch
}

// process does one turn of work on e and says whether more remains.
func (in *Ingester) process(ctx context.Context, sc *scratch, e *logEntry) (again bool) {
	in.mu.Lock()
	l := e.sched.next
	in.mu.Unlock()
	if l == nil {
		return false
	}
	if e.rec.get().Done { // a finished log changed: start over
		e.mu.Lock()
		e.tail, e.read.part, e.read.offset = nil, 0, 0
		e.unpacked = unpackedModel{}
		e.mu.Unlock()
		e.rec.update(func(r *store.LogRecord) { r.Done = false })
	}
	if !l.InProgress && e.tail == nil && !e.read.resume {
		return in.replayFinished(ctx, e, l)
	}
	again, err := in.tail(ctx, sc, e, l)
	if err != nil && ctx.Err() == nil {
		in.stats.Errors.Add(1)
		in.cfg.Logger.Warn("tail", "log", l.Path, "err", err)
		e.rec.update(func(r *store.LogRecord) { r.Error = err.Error() })
		return false
	}
	return again
}

// replayFinished replays a complete log in one go and stores its analysis.
// A main worker gives up after SlowAfter and hands the log to the slow
// lane (again is true: the worker queues it there), which replays it to
// its end.
func (in *Ingester) replayFinished(ctx context.Context, e *logEntry, l *eventlog.Log) (again bool) {
	rctx := ctx
	in.mu.Lock()
	slow := e.sched.slow
	in.mu.Unlock()
	if !slow {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeoutCause(ctx, in.cfg.SlowAfter, errSlow)
		defer cancel()
	}
	a, st, err := replay.Log(rctx, l, replay.Options{Workers: 1, Redaction: in.cfg.Redaction})
	if ctx.Err() != nil {
		return false
	}
	if rctx.Err() != nil && context.Cause(rctx) == errSlow {
		in.cfg.Logger.Info("ingest", "log", l.Path, "slow", fmt.Sprintf("replay outlasted %s", in.cfg.SlowAfter),
			"action", "continued in the slow lane")
		in.stats.SlowLane.Add(1)
		in.mu.Lock()
		e.sched.slow = true
		in.mu.Unlock()
		return true
	}
	if st != nil {
		in.stats.Bytes.Add(st.Bytes)
		in.stats.Events.Add(st.Events)
	}
	if err != nil {
		in.fail(e, l, err)
		return false
	}
	in.finish(ctx, e, l, a, st)
	return false
}

// errSlow is the cause of a replay stopped after Config.SlowAfter.
var errSlow = errors.New("replay outlasted the slow-lane limit")

// finish keeps the model of a complete log cached and stores its
// analysis. The model answers (listing, REST API, pages) as soon as it is
// replayed: the analysis, the report, the views and the store write
// follow — on the big log grown 4 times they were a quarter of serve's
// time to its first answer. A report asked for meanwhile is made from
// the model (Report).
func (in *Ingester) finish(ctx context.Context, e *logEntry, l *eventlog.Log, a *model.Attempt, st *replay.Stats) {
	rec := fillRecord(e.rec.get(), l, a, st)
	rec.Done, rec.Error = true, ""
	if a.AppID != "" {
		in.cache.put(e.key, a)
	}
	e.rec.update(func(r *store.LogRecord) { *r = rec })
	e.mu.Lock()
	e.tail, e.unpacked = nil, unpackedModel{}
	e.mu.Unlock()
	var rep []byte
	var views map[string][]byte
	var result *analyze.Result
	if a.AppID != "" {
		input := Input{Attempt: a, Log: reportLog(rec, st), InProgress: l.InProgress, ModTime: l.ModTime, Now: time.Now(),
			Result: analyze.Analyze(a)}
		result = input.Result
		var err error
		if rep, err = in.cfg.Analyze(input); err != nil {
			in.fail(e, l, fmt.Errorf("analyze: %w", err))
			return
		}
		if in.cfg.Views != nil {
			if views, err = in.cfg.Views(input); err != nil {
				in.fail(e, l, fmt.Errorf("views: %w", err))
				return
			}
		}
	}
	if err := in.cfg.Store.PutAnalysis(rec, rep, views); err != nil {
		in.stats.Errors.Add(1)
		in.cfg.Logger.Error("store", "log", l.Path, "err", err)
		return
	}
	if in.cfg.Listener != nil && a.AppID != "" {
		in.cfg.Listener.Finished(ctx, Input{Attempt: a, Log: reportLog(rec, st), ModTime: l.ModTime, Now: time.Now(),
			Result: result})
	}
}

// fail records a log that cannot be read as done-with-error, so it is not
// retried until it changes.
func (in *Ingester) fail(e *logEntry, l *eventlog.Log, err error) {
	in.stats.Errors.Add(1)
	in.cfg.Logger.Warn("ingest", "log", l.Path, "err", err)
	rec := e.rec.update(func(r *store.LogRecord) {
		r.Path, r.Name, r.Size, r.ModTime = l.Path, l.Name, l.Size, l.ModTime.UnixNano()
		r.Error, r.Done = err.Error(), true
	})
	e.mu.Lock()
	e.tail, e.unpacked = nil, unpackedModel{}
	e.mu.Unlock()
	if err := in.cfg.Store.PutLog(rec); err != nil {
		in.cfg.Logger.Error("store", "log", l.Path, "err", err)
	}
}

// fillRecord fills a log record from the log and its attempt.
func fillRecord(rec store.LogRecord, l *eventlog.Log, a *model.Attempt, st *replay.Stats) store.LogRecord {
	rec.Path, rec.Name, rec.Codec, rec.Rolling = l.Path, l.Name, string(l.Codec), l.Rolling
	rec.Size, rec.ModTime = l.Size, l.ModTime.UnixNano()
	if st != nil {
		rec.Events, rec.Bad = st.Events, st.BadLines
	}
	rec.Impossible = a.Impossible
	rec.AppID, rec.AttemptID, rec.AppName, rec.User = a.AppID, a.AttemptID, a.AppName, a.SparkUser
	rec.SparkVersion, rec.StartTime, rec.EndTime, rec.Completed = a.SparkVersion, a.StartTime, a.EndTime, a.Completed
	rec.LastUpdated, rec.LastEvent, rec.ExitCode = a.LastUpdated, analyze.LastEventTime(a), a.ExitCode
	rec.Tags, rec.Run = tags(a), attemptRun(a)
	rec.Stages, rec.Tasks = len(a.Stages), 0
	for _, s := range a.Stages {
		rec.Tasks += s.TaskCount()
	}
	return rec
}

// tail reads up to MaxBatch more bytes of a log being written (or of one
// that was being written when we started reading it) and applies them.
func (in *Ingester) tail(ctx context.Context, sc *scratch, e *logEntry, l *eventlog.Log) (again bool, err error) {
	in.startTail(ctx, e, l)
	e.read.parts = l.Parts
	applied, again, err := in.readTurn(ctx, sc, e, l)
	if err != nil || again {
		return again, err
	}
	if !l.InProgress {
		return false, in.endTail(ctx, e, l)
	}
	return false, in.tailProgress(ctx, e, l, applied)
}

// startTail drops a tail that no longer lines up with the log, and starts
// one (resumed from the store when it can) when there is none.
func (in *Ingester) startTail(ctx context.Context, e *logEntry, l *eventlog.Log) {
	if e.tail != nil && l.Rolling && !e.follow(l) {
		// The part being read was compacted away: what was applied can no
		// longer be lined up with the parts, so read the log again.
		e.mu.Lock()
		e.tail, e.unpacked = nil, unpackedModel{}
		e.mu.Unlock()
	}
	if e.tail != nil {
		if why := replaced(ctx, e, l); why != "" {
			// Another log took this name (or the file was cut): what was
			// applied belongs to it, not to what is there now.
			in.cfg.Logger.Warn("tail", "log", l.Path, "replaced", why, "action", "read from the start")
			in.stats.Replaced.Add(1)
			e.mu.Lock()
			e.tail, e.unpacked = nil, unpackedModel{}
			e.mu.Unlock()
			e.read.resume = false
		}
	}
	if e.tail == nil && e.read.resume {
		e.read.resume = false
		in.restore(ctx, e, l)
	}
	if e.tail == nil {
		t := replay.NewTail(replay.Options{Name: l.Name, Redaction: in.cfg.Redaction, Decoders: in.decoders})
		t.Attempt().LogPath, t.Attempt().LogName = l.Path, l.Name
		e.mu.Lock()
		e.tail, e.read.part, e.read.offset, e.read.last = t, 0, 0, e.read.last[:0]
		e.mu.Unlock()
		e.read.head = nil
		if checksHead(l) {
			e.read.head, _ = l.Head(ctx, 0, headBytes) // a read error shows in the read that follows
		}
		e.read.lastSave, e.read.savedPart, e.read.savedOffset = time.Now(), 0, 0
		e.rec.update(func(r *store.LogRecord) { r.Done = false })
	}
}

// readTurn reads and applies up to MaxBatch bytes, part after part; again
// when there is more to read now (the turn's budget spent, or a part not
// read to its end).
func (in *Ingester) readTurn(ctx context.Context, sc *scratch, e *logEntry, l *eventlog.Log) (applied, again bool, err error) {
	budget := in.cfg.MaxBatch
	for budget > 0 && e.read.part < len(l.Parts) {
		data, eof, err := readPart(ctx, l, e.read.part, e, budget, sc.buf)
		if err != nil {
			return applied, false, err
		}
		if cap(data) >= cap(sc.buf) {
			sc.buf = data[:0]
		}
		e.read.last = keepLast(e.read.last, data)
		budget -= int64(len(data))
		if len(data) > 0 {
			applied = true
			if err := in.apply(sc, e, l, data); err != nil {
				return applied, false, err
			}
		}
		if !eof {
			in.saveTail(e, false)
			return applied, true, nil
		}
		if e.read.part == len(l.Parts)-1 {
			break
		}
		e.read.part, e.read.offset, e.read.last = e.read.part+1, 0, e.read.last[:0] // a later part exists: this one is complete
	}
	if budget <= 0 {
		in.saveTail(e, false)
		return applied, true, nil
	}
	return applied, false, nil
}

// apply decodes data into the tail's model and updates the log's record.
func (in *Ingester) apply(sc *scratch, e *logEntry, l *eventlog.Log, data []byte) error {
	b := e.tail.DecodeInto(sc.batch, data)
	sc.batch = b
	e.mu.Lock()
	err := e.tail.Apply(b)
	e.unpacked = unpackedModel{} // under mu: no reader holds it
	a := e.tail.Attempt()
	a.LogPath, a.LogName = l.Path, l.Name
	if !l.ModTime.IsZero() {
		a.LastUpdated = max(a.LastUpdated, l.ModTime.UnixMilli())
	}
	rec := fillRecord(e.rec.get(), l, a, e.tail.Stats())
	e.mu.Unlock()
	rec.Part, rec.Offset = e.read.part, e.read.offset
	e.rec.update(func(r *store.LogRecord) { *r = rec })
	in.stats.Bytes.Add(int64(len(data)))
	in.stats.Events.Add(int64(b.Events()))
	e.read.dirty = true
	return err
}

// endTail ends the model of a log read to its end and no longer written.
func (in *Ingester) endTail(ctx context.Context, e *logEntry, l *eventlog.Log) error {
	e.mu.Lock()
	err := e.tail.Apply(e.tail.End())
	e.unpacked = unpackedModel{}
	e.mu.Unlock()
	if err != nil {
		return err
	}
	a, err := e.tail.Model() // only this worker changes the model
	if err != nil {
		return err
	}
	in.finish(ctx, e, l, a, e.tail.Stats())
	return nil
}

// tailProgress stores a running log's record now and then and tells the
// listener what was applied, then saves the resume state.
func (in *Ingester) tailProgress(ctx context.Context, e *logEntry, l *eventlog.Log, applied bool) error {
	if time.Since(e.read.lastProgress) > progressEvery {
		e.read.lastProgress = time.Now()
		// The stored Part and Offset stay those of the resume state.
		rec := e.rec.get()
		rec.Part, rec.Offset = e.read.savedPart, e.read.savedOffset
		if err := in.cfg.Store.PutLog(rec); err != nil {
			return err
		}
	}
	if applied && in.cfg.Listener != nil && wantsProgress(in.cfg.Listener) {
		// Only this worker changes the model, so it needs no lock to read it.
		if a := e.tail.Attempt(); a.AppID != "" {
			a, err := e.tail.Model()
			if err != nil {
				return err
			}
			rec := e.rec.get()
			in.cfg.Listener.Progress(ctx, Input{Attempt: a, Log: reportLog(rec, e.tail.Stats()), InProgress: true,
				ModTime: l.ModTime, Now: time.Now()})
		}
	}
	in.saveTail(e, false) // after Progress: what the listener did is saved with it
	return nil
}

// headBytes is how much of a log's start identifies it: past Spark's first
// events (log start, resource profile), into the driver's block manager
// with its time and port.
const headBytes = 4096

// checksHead says whether a log's head is compared turn after turn: a
// local single file. A rolling log's parts are replaced by compaction (see
// follow); an S3 object is not appended to, and a ranged GET each turn
// would cost more than it tells.
func checksHead(l *eventlog.Log) bool {
	return !l.Rolling && len(l.Parts) == 1 && !strings.HasPrefix(l.Path, "s3://")
}

// replaced says why the log being tailed is no longer the one whose events
// were applied, or "": the part being read is shorter than what was read
// of it, or a single file's first bytes changed (rewritten, or another
// application's log moved in under the same name).
func replaced(ctx context.Context, e *logEntry, l *eventlog.Log) string {
	if e.read.part >= len(l.Parts) {
		return fmt.Sprintf("%d parts, reading part %d", len(l.Parts), e.read.part+1)
	}
	p := l.Parts[e.read.part]
	read := e.read.pos.Comp // stored bytes read of the part, at least
	if p.Codec == "" || p.Codec == codec.None {
		read = e.read.offset
	}
	if p.Size < read {
		// The listing may be older than the reads: a log that grew after
		// it was listed is read past the size listed (a worker's next turn
		// has the same listing). Only a part smaller now was cut.
		now, err := l.PartSize(ctx, e.read.part)
		if err != nil || now >= read {
			return "" // grown; or gone, which the read that follows reports
		}
		return fmt.Sprintf("%s is %d bytes, %d were read", p.Path, now, read)
	}
	if !checksHead(l) {
		return ""
	}
	h, err := l.Head(ctx, 0, headBytes)
	if err != nil {
		return "" // the read that follows reports it
	}
	n := min(len(h), len(e.read.head))
	if !bytes.Equal(h[:n], e.read.head[:n]) {
		return fmt.Sprintf("its first %d bytes changed", n)
	}
	if len(h) > len(e.read.head) {
		e.read.head = h
	}
	return ""
}

// follow finds the part being read in a new listing of a rolling log (by
// its events_<N> number: Spark's compaction replaces earlier parts by one
// .compact file, which shifts positions); false when it is gone.
func (e *logEntry) follow(l *eventlog.Log) bool {
	if e.read.part >= len(e.read.parts) {
		return e.read.part == 0
	}
	want := e.read.parts[e.read.part]
	for i, p := range l.Parts {
		if p.Index == want.Index && p.Compact == want.Compact {
			e.read.part = i
			e.read.parts = l.Parts
			return true
		}
	}
	return false
}

// readPart reads up to limit decoded bytes of part i of l after e.read.offset
// into buf's storage and advances e.read.offset and e.read.pos; eof says the part had no more. It
// resumes at e.read.pos's restart point (no re-decoding of the part) when e.read.pos
// belongs to e.read.offset, else decodes the part from its start.
func readPart(ctx context.Context, l *eventlog.Log, i int, e *logEntry, limit int64, buf []byte) (data []byte, eof bool, err error) {
	pos := e.read.pos
	if pos.Decoded != e.read.offset || e.read.offset == 0 {
		pos = eventlog.PartPos{Decoded: e.read.offset}
	}
	data, next, eof, err := l.ReadPartInto(ctx, i, pos, limit, buf)
	if err != nil {
		return nil, false, err
	}
	e.read.offset, e.read.pos = next.Decoded, next
	return data, eof, nil
}

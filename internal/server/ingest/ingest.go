// Package ingest keeps sparkdx serve's view of every event log current: it
// lists the log directories (inotify wakes it for local ones, a poll for
// all), replays finished logs once and stores their analysis, and tails
// logs still being written, so that a running application's model grows
// within seconds of Spark writing an event.
//
// Work goes through a bounded queue served by a fixed number of workers;
// a log is queued at most once, a worker reads at most MaxBatch bytes of it
// per turn and queues it again, so one huge log cannot starve the others,
// and a full queue makes the scanner wait for the next scan (back-pressure)
// instead of growing memory.
package ingest

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// Ingester owns the set of known logs.
type Ingester struct {
	cfg      Config
	queue    chan *logEntry
	slow     chan *logEntry // finished logs a worker gave up on after SlowAfter
	wake     chan struct{}
	cache    *cache
	unpacked unpackedSet // running logs keeping their unpacked model
	// decoders are lent to the tails for each read, so that an idle
	// running log holds no parser memory.
	decoders *replay.Decoders

	mu      sync.Mutex // guards entries and scanned
	entries map[string]*logEntry
	scanned bool // one full scan has completed

	stats      counters
	otherShard atomic.Int64  // logs the last complete scan left to other shards
	version    atomic.Uint64 // changes whenever any record changes
	report     scanReport    // what the last scan found wrong; under mu
	shadow     shadowSet     // duplicate attempts' losers (duplicates.go); under mu
}

// Version changes whenever the index (any log's record) changes, so that
// views of the whole fleet can be cached until it does.
func (in *Ingester) Version() uint64 { return in.version.Load() }

// counters are the ingester's counters; Status reads them.
type counters struct {
	Scans, ScanErrors, Deferred, Processed, Errors atomic.Int64
	Bytes, Events, InFlight                        atomic.Int64
	Resumed, Saves, SaveBytes, SaveNanos           atomic.Int64
	SlowLane                                       atomic.Int64
	Replaced                                       atomic.Int64
	Expired                                        atomic.Int64 // logs past retention in the last scan
}

// Status is what /healthz and /metrics show of ingest.
type Status struct {
	QueueDepth int   `json:"queueDepth"`
	QueueCap   int   `json:"queueCapacity"`
	Logs       int   `json:"logs"`
	Running    int   `json:"running"`
	Done       int   `json:"done"`
	Scans      int64 `json:"scans"`
	ScanErrors int64 `json:"scanErrors"`
	Deferred   int64 `json:"deferred"`
	Processed  int64 `json:"processed"`
	Errors     int64 `json:"errors"`
	Bytes      int64 `json:"bytesRead"`
	Events     int64 `json:"eventsApplied"`
	InFlight   int64 `json:"inFlight"`
	BadLines   int64 `json:"badLines"` // malformed lines in the logs known
	// Impossible counts the values the logs known recorded that cannot
	// be (model.Attempt.Impossible), summed.
	Impossible int64 `json:"impossibleValues"`
	// Resumed counts running logs continued from their stored replay
	// state at startup; Saves, SaveBytes and SaveMs the states stored.
	Resumed   int64   `json:"resumed"`
	Saves     int64   `json:"tailSaves"`
	SaveBytes int64   `json:"tailSaveBytes"`
	SaveMs    float64 `json:"tailSaveMs"`
	// Replaced counts running logs found cut or replaced under their name
	// while tailed, and read again from the start.
	Replaced int64 `json:"replaced"`
	// SlowLane counts finished logs whose replay outlasted SlowAfter and
	// went on in the slow lane.
	SlowLane int64 `json:"slowLane"`
	// Expired is how many logs the last scan found past the apps'
	// retention (--app-max-age, --max-finished-apps) and did not keep.
	Expired int64 `json:"expired"`
	// OtherShard is how many logs the last scan found that belong to
	// other serve instances' shards (--shard) and passed over unread.
	OtherShard int64 `json:"otherShard"`
	// LagMs is the age of the oldest change seen and not yet read.
	LagMs   int64 `json:"lagMs"`
	Scanned bool  `json:"scanned"`
}

// logEntry is one event log. Its state is grouped by who may touch it:
// the index record (its own lock), the live model (mu), the scheduling
// state (Ingester.mu) and the read position (the one worker holding the
// entry).
type logEntry struct {
	key string
	rec record

	// mu guards tail and the live attempt's contents: readers hold it
	// shared while they read the model, the worker exclusively to apply.
	mu   sync.RWMutex
	tail *replay.Tail // set under mu by the worker holding the entry
	// unpacked is the tail's model with its tasks unpacked, made for the
	// readers between two applies (the worker clears it under mu) so that
	// each request does not unpack every task again; unpackMu orders the
	// readers that share mu.
	unpackMu sync.Mutex
	unpacked unpackedModel

	sched schedState // under Ingester.mu
	read  readState  // the worker holding the entry's alone

	loadMu sync.Mutex // one on-demand replay at a time
}

// unpackedModel is a tail's unpacked model and the tail it is of.
type unpackedModel struct {
	of *replay.Tail
	a  *model.Attempt
}

// record is a log's index record, locked alone so listing the fleet never
// waits for an apply.
type record struct {
	mu      sync.Mutex
	r       store.LogRecord
	version *atomic.Uint64 // the ingester's index version, bumped by update
}

// get returns a copy of the record.
func (r *record) get() store.LogRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.r
}

// read calls f with the record under its lock, without copying it.
func (r *record) read(f func(r *store.LogRecord)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.r)
}

// update changes the record and bumps the index version.
func (r *record) update(f func(r *store.LogRecord)) store.LogRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.r)
	r.version.Add(1)
	return r.r
}

// schedState is what the scanner saw of a log and whether a worker has
// it; read and written under Ingester.mu.
type schedState struct {
	next      *eventlog.Log
	scheduled bool
	queuedAt  time.Time // when the change being worked on was first seen
	seenSize  int64
	seenMod   time.Time
	seenProg  bool
	// slow: a replay of this log outlasted SlowAfter; it is worked on in
	// the slow lane from then on. Set by the worker.
	slow bool
}

// readState is how far a log has been read and when its resume state
// was stored; only the worker holding the entry touches it.
type readState struct {
	part         int             // position in parts of the part being read
	parts        []eventlog.Part // the parts as last read
	offset       int64
	pos          eventlog.PartPos // restart point in that part; used while pos.Decoded == offset
	head         []byte           // first stored bytes of a single-file log being tailed (replaced checks)
	lastProgress time.Time
	resume       bool      // a resume state may be stored: try it before reading from the start
	dirty        bool      // applied something since the resume state was last stored
	lastSave     time.Time // when it was
	savedPart    int       // the part and offset it was stored at
	savedOffset  int64
	last         []byte // the last decoded bytes read of the part, to recognise it on restart
}

// New returns an Ingester that knows what the store holds.
func New(cfg Config) (*Ingester, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	in := &Ingester{cfg: cfg, queue: make(chan *logEntry, cfg.Queue), slow: make(chan *logEntry, cfg.Queue), wake: make(chan struct{}, 1),
		cache: newCache(cfg.CacheSize), unpacked: unpackedSet{max: cfg.Unpacked}, decoders: replay.NewDecoders(), entries: map[string]*logEntry{}}
	recs, err := cfg.Store.Logs()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		e := &logEntry{key: r.Key, rec: record{r: r, version: &in.version}}
		if r.Done {
			e.sched.seenSize, e.sched.seenMod = r.Size, time.Unix(0, r.ModTime)
		} else {
			// A log that was running when we stopped continues from its
			// stored replay state, if any (restore); until then the index
			// shows what it knew.
			e.rec.r.Offset, e.rec.r.Part = 0, 0
			e.read.resume = true
		}
		in.entries[r.Key] = e
	}
	return in, nil
}

// Key is the index key of a log: its path without ".inprogress", so a log
// Spark renames when the application ends stays the same entry.
func Key(path string) string { return strings.TrimSuffix(path, ".inprogress") }

// Run scans and ingests until ctx ends.
func (in *Ingester) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for range in.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.work(ctx, in.queue)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		in.work(ctx, in.slow)
	}()
	var w *watcher
	if in.cfg.Watch {
		w = newWatcher(in.cfg.Logger, in.Wake)
		defer w.close()
	}
	prune := time.Now()
	t := time.NewTicker(in.cfg.Poll)
	defer t.Stop()
	for {
		in.scan(ctx, w)
		if time.Since(prune) > time.Minute {
			prune = time.Now()
			if _, err := in.cfg.Store.PruneSamples(prune.Add(-in.cfg.Retention).UnixMilli()); err != nil {
				in.cfg.Logger.Warn("prune samples", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			in.saveAll()
			return nil
		case <-t.C:
		case <-in.wake:
			// inotify bursts: let the writer finish its line.
			select {
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	}
}

// Wake asks for a scan now.
func (in *Ingester) Wake() {
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

func (in *Ingester) scan(ctx context.Context, w *watcher) {
	in.stats.Scans.Add(1)
	var found []*eventlog.Log
	other := int64(0) // logs of other shards, passed over
	complete := true  // every root listed: what is not found is gone
	report := scanReport{rootErrors: map[string]string{}}
	opts := in.cfg.Open
	opts.Skipped = func(path string, reason error) {
		report.skip(path, reason)
		if in.cfg.Open.Skipped != nil {
			in.cfg.Open.Skipped(path, reason)
		}
	}
	if in.cfg.Shard.Enabled() {
		opts.Keep = func(name string) bool {
			if in.cfg.Shard.Owns(name) {
				return true
			}
			other++
			return false
		}
	}
	for _, root := range in.cfg.Roots {
		logs, err := eventlog.Open(ctx, root, opts)
		if err != nil {
			complete = false
			in.stats.ScanErrors.Add(1)
			in.cfg.Logger.Warn("scan", "root", root, "err", err)
			report.rootErrors[root] = err.Error()
			continue
		}
		for _, l := range logs {
			if !in.cfg.Shard.Owns(l.Name) { // a root that is one log
				other++
				continue
			}
			found = append(found, l)
		}
		if w != nil {
			w.add(root)
		}
	}
	expired := in.cfg.Apps.expired(found, time.Now())
	finished := map[string]bool{}
	for _, l := range found {
		if !l.InProgress {
			finished[l.Path] = true
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if ctx.Err() == nil {
		in.report = report
	}
	seen := map[string]bool{}
	for _, l := range found {
		if expired[l.Path] {
			continue // not seen: forget drops it from the store if it was kept
		}
		if w != nil && l.Rolling && l.InProgress {
			w.add(l.Path)
		}
		key := Key(l.Path)
		if key != l.Path && finished[key] {
			key = l.Path // both X and X.inprogress exist: two logs, not a rename
		}
		seen[key] = true
		e := in.entries[key]
		if e == nil {
			e = &logEntry{key: key, rec: record{r: store.LogRecord{Key: key, Path: l.Path, Name: l.Name}, version: &in.version}}
			in.entries[key] = e
			in.version.Add(1)
		}
		if e.sched.scheduled || !in.changed(e, l) {
			continue
		}
		e.sched.next = l
		queue := in.queue
		if e.sched.slow {
			queue = in.slow
		}
		select {
		case queue <- e:
			e.sched.scheduled, e.sched.queuedAt = true, time.Now()
			e.sched.seenSize, e.sched.seenMod, e.sched.seenProg = l.Size, l.ModTime, l.InProgress
		default:
			in.stats.Deferred.Add(1) // the next scan tries again
		}
	}
	if complete && ctx.Err() == nil {
		// A log of another shard is never seen: one stored before the
		// split changed is forgotten here, and its owner has it.
		in.forget(seen)
		in.otherShard.Store(other)
	}
	if ctx.Err() == nil {
		in.stats.Expired.Store(int64(len(expired)))
	}
	in.scanned = true
}

// forget drops the logs a complete scan no longer finds (deleted, or
// aged out by Spark's cleaner), as the History Server does; called under
// in.mu.
func (in *Ingester) forget(seen map[string]bool) {
	for key, e := range in.entries {
		if seen[key] || e.sched.scheduled {
			continue
		}
		if err := in.cfg.Store.DeleteLog(key); err != nil {
			in.cfg.Logger.Warn("forget", "log", key, "err", err)
			continue
		}
		delete(in.entries, key)
		in.cache.remove(key)
		if in.cfg.Listener != nil {
			in.cfg.Listener.Forgotten(e.rec.get())
		}
		in.version.Add(1)
	}
}

// changed says whether l needs work; called under in.mu.
func (in *Ingester) changed(e *logEntry, l *eventlog.Log) bool {
	r := e.rec.get()
	done, size, mod := r.Done, r.Size, r.ModTime
	if done && !l.InProgress && size == l.Size && mod == l.ModTime.UnixNano() {
		return false
	}
	return e.sched.next == nil || l.Size != e.sched.seenSize || !l.ModTime.Equal(e.sched.seenMod) || l.InProgress != e.sched.seenProg || done
}

// work processes the entries of queue (the main queue, or the slow lane)
// until ctx ends.
func (in *Ingester) work(ctx context.Context, queue chan *logEntry) {
	var sc scratch
	for {
		var e *logEntry
		select {
		case <-ctx.Done():
			return
		case e = <-queue:
		default:
			// Idle: the buffers of a busy spell (a turn's bytes and
			// events, up to MaxBatch) are not held while nothing comes.
			sc = scratch{}
			select {
			case <-ctx.Done():
				return
			case e = <-queue:
			}
		}
		in.stats.InFlight.Add(1)
		again := in.process(ctx, &sc, e)
		in.stats.Processed.Add(1)
		in.mu.Lock()
		e.sched.scheduled = false
		next := in.queue
		if e.sched.slow {
			next = in.slow
		}
		if again && ctx.Err() == nil {
			select {
			case next <- e:
				e.sched.scheduled = true
			default:
				in.stats.Deferred.Add(1)
				e.sched.seenSize = -1 // make the next scan queue it
			}
		}
		in.mu.Unlock()
		in.stats.InFlight.Add(-1)
	}
}

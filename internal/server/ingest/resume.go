package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// A running log's resume state is stored with its record (store.PutTail):
// where reading stands and the replay state at that point. A restart
// restores the replay and reads on from there, so nothing read before the
// last save is read again; a kill -9 loses at most what was read since
// then (Config.SnapshotEvery), which is then read again.

// resumePoint is where reading of a log stands: the part (found again by
// its rolling index, or its path without ".inprogress" for a single file,
// since Spark's compaction shifts positions and renames the file when the
// application ends) and the decoded bytes of it applied.
type resumePoint struct {
	Part    int    `json:"part"`
	Key     string `json:"key"` // Key of the part's path
	Index   int    `json:"index"`
	Compact bool   `json:"compact,omitempty"`
	Offset  int64  `json:"offset"`
	// Pos is where a reader of a compressed part restarts (a block or
	// frame boundary at or before Offset), so that the part is not decoded
	// from its start again.
	Pos eventlog.PartPos `json:"pos"`
	// Last is the part's last decoded bytes before Offset: a restart checks
	// them, so that a log replaced while serve was down is read anew
	// rather than continued at an offset of the old one.
	Last []byte `json:"last,omitempty"`
	// Listener is the ResumableListener's state, if the listener is one.
	Listener []byte `json:"listener,omitempty"`
}

// encodeResume lays out a resume state: uvarint length, the point as
// JSON, then the tail's snapshot.
func encodeResume(p resumePoint, snap []byte) ([]byte, error) {
	head, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(make([]byte, 0, len(head)+len(snap)+4), uint64(len(head)))
	return append(append(out, head...), snap...), nil
}

func decodeResume(data []byte) (resumePoint, []byte, error) {
	var p resumePoint
	n, k := binary.Uvarint(data)
	if k <= 0 || n > uint64(len(data)-k) {
		return p, nil, errors.New("resume state: bad header length")
	}
	if err := json.Unmarshal(data[k:k+int(n)], &p); err != nil {
		return p, nil, fmt.Errorf("resume state: %w", err)
	}
	return p, data[k+int(n):], nil
}

// find returns the position of the point's part in parts, or -1.
func (p resumePoint) find(parts []eventlog.Part) int {
	for i, q := range parts {
		if q.Index == p.Index && q.Compact == p.Compact && Key(q.Path) == p.Key {
			return i
		}
	}
	return -1
}

// saveTail stores e's resume state when it has applied something since
// the last save and the last save is older than SnapshotEvery (force:
// whatever its age). Called by the worker holding e, or after they ended.
func (in *Ingester) saveTail(e *logEntry, force bool) {
	if e.tail == nil || !e.read.dirty || e.read.part >= len(e.read.parts) || (!force && time.Since(e.read.lastSave) < in.cfg.SnapshotEvery) {
		return
	}
	start := time.Now()
	e.mu.RLock()
	snap, err := e.tail.Snapshot()
	e.mu.RUnlock()
	var blob []byte
	if err == nil {
		p := e.read.parts[e.read.part]
		pt := resumePoint{Part: e.read.part, Key: Key(p.Path), Index: p.Index, Compact: p.Compact, Offset: e.read.offset, Last: e.read.last}
		if e.read.pos.Decoded == e.read.offset {
			pt.Pos = e.read.pos
		}
		// Only this worker changes the model, so it needs no lock to read it.
		if rl, ok := in.cfg.Listener.(ResumableListener); ok && e.tail.Attempt().AppID != "" {
			pt.Listener = rl.SaveState(Input{Attempt: e.tail.Attempt(), InProgress: true})
		}
		blob, err = encodeResume(pt, snap)
	}
	if err == nil {
		rec := e.rec.get()
		rec.Part, rec.Offset = e.read.part, e.read.offset
		err = in.cfg.Store.PutTail(rec, blob)
	}
	if err != nil {
		in.stats.Errors.Add(1)
		in.cfg.Logger.Warn("save tail", "log", e.key, "err", err)
		return
	}
	e.read.dirty, e.read.lastSave = false, time.Now()
	e.read.savedPart, e.read.savedOffset = e.read.part, e.read.offset
	in.stats.Saves.Add(1)
	in.stats.SaveBytes.Add(int64(len(blob)))
	in.stats.SaveNanos.Add(int64(time.Since(start)))
}

// restore continues e from its stored resume state, if there is one that
// still fits the log l; it says whether it did. A state that no longer
// fits (the part was compacted away or the file shrank) or that an older
// sparkdx wrote is dropped: the log is read from its start.
func (in *Ingester) restore(ctx context.Context, e *logEntry, l *eventlog.Log) bool {
	blob, err := in.cfg.Store.Tail(e.key)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			in.cfg.Logger.Warn("resume", "log", e.key, "err", err)
		}
		return false
	}
	p, snap, err := decodeResume(blob)
	i := p.find(l.Parts)
	switch {
	case err != nil:
	case i < 0:
		err = fmt.Errorf("part %d (events %d) is gone", p.Part, p.Index)
	case (l.Parts[i].Codec == codec.None || l.Parts[i].Codec == "") && l.Parts[i].Size < p.Offset:
		err = fmt.Errorf("part %s is %d bytes, shorter than the %d already read", l.Parts[i].Path, l.Parts[i].Size, p.Offset)
	case l.Parts[i].Size < p.Pos.Comp:
		err = fmt.Errorf("part %s is %d bytes, shorter than its restart point %d", l.Parts[i].Path, l.Parts[i].Size, p.Pos.Comp)
	}
	if err == nil {
		err = checkLast(ctx, l, i, p)
	}
	var t *replay.Tail
	if err == nil {
		t, err = replay.RestoreTail(replay.Options{Name: l.Name, Redaction: in.cfg.Redaction, Decoders: in.decoders}, snap)
	}
	if err != nil {
		in.cfg.Logger.Info("resume: reading the log from its start", "log", e.key, "reason", err)
		return false
	}
	if rl, ok := in.cfg.Listener.(ResumableListener); ok && p.Listener != nil && t.Attempt().AppID != "" {
		rl.RestoreState(Input{Attempt: t.Attempt(), InProgress: true}, p.Listener)
	}
	e.mu.Lock()
	e.tail, e.read.part, e.read.offset, e.read.last = t, i, p.Offset, append(e.read.last[:0], p.Last...)
	e.read.pos = eventlog.PartPos{Decoded: p.Offset}
	if p.Pos.Decoded == p.Offset {
		e.read.pos = p.Pos
	}
	e.mu.Unlock()
	e.read.parts = l.Parts
	e.read.lastSave = time.Now()
	e.read.savedPart, e.read.savedOffset = i, p.Offset
	in.stats.Resumed.Add(1)
	return true
}

// saveAll stores the resume state of every running log that changed since
// its last save; Run calls it once its workers have stopped.
func (in *Ingester) saveAll() {
	in.mu.Lock()
	entries := make([]*logEntry, 0, len(in.entries))
	for _, e := range in.entries {
		entries = append(entries, e)
	}
	in.mu.Unlock()
	for _, e := range entries {
		in.saveTail(e, true)
	}
}

// lastBytes is how many of a part's last decoded bytes a resume state
// keeps to recognise the part.
const lastBytes = 64

// keepLast appends data to the last bytes kept and keeps lastBytes of them.
func keepLast(last, data []byte) []byte {
	last = append(last, data[max(0, len(data)-lastBytes):]...)
	if n := len(last) - lastBytes; n > 0 {
		last = append(last[:0], last[n:]...)
	}
	return last
}

// checkLast reads the bytes the resume state says end the part at its
// offset and fails when the part now holds others. A compressed part is
// read from the stored restart point (at most a block is decoded), so only
// the kept bytes past that point are compared.
func checkLast(ctx context.Context, l *eventlog.Log, i int, p resumePoint) error {
	last := p.Last
	plain := l.Parts[i].Codec == codec.None || l.Parts[i].Codec == ""
	if !plain {
		if p.Pos.Decoded != p.Offset {
			return nil // no restart point: checking would decode the part from its start
		}
		last = last[max(0, int64(len(last))-(p.Offset-p.Pos.CompDecoded)):]
	}
	n := int64(len(last))
	if n == 0 || n > p.Offset {
		return nil
	}
	from := eventlog.PartPos{Decoded: p.Offset - n, Comp: p.Offset - n, CompDecoded: p.Offset - n}
	if !plain {
		from.Comp, from.CompDecoded = p.Pos.Comp, p.Pos.CompDecoded
	}
	got, _, _, err := l.ReadPart(ctx, i, from, n)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, last) {
		return fmt.Errorf("part %s: the %d bytes before offset %d changed: another log under the same name", l.Parts[i].Path, n, p.Offset)
	}
	return nil
}

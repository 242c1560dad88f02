package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/sparkdx/sparkdx/internal/snapshot"
)

// ErrSnapshotVersion says a stored tail snapshot was written by a sparkdx
// whose replay state had another structure: replay the log from its start.
var ErrSnapshotVersion = snapshot.ErrSchema

// tailState is what a Tail carries from one call to the next: the replay
// state (the attempt and the listener's live bookkeeping, which point into
// each other) and the reading position.
type tailState struct {
	St      *state
	Carry   []byte
	Line    int64
	Stats   statsState
	LastBad int // index of lastBad in Stats.FirstBad; -1 for none
}

// statsState is Stats with each malformed line's error as its text.
type statsState struct {
	Bytes, Lines, Events, BadLines int64
	Truncated                      bool
	Unknown                        map[string]int
	FirstBad                       []lineErrorState
}

type lineErrorState struct {
	Name  string
	Line  int64
	Event string
	Err   string
}

// Snapshot encodes everything the tail has applied and holds back, so
// that RestoreTail can continue it where it stands without reading the
// log's earlier bytes again. Call it between Apply calls, with no decoded
// batch outstanding.
func (t *Tail) Snapshot() ([]byte, error) {
	ts := tailState{St: t.st, Carry: t.carry, Line: t.line, LastBad: -1, Stats: statsState{
		Bytes: t.stats.Bytes, Lines: t.stats.Lines, Events: t.stats.Events, BadLines: t.stats.BadLines,
		Truncated: t.stats.Truncated, Unknown: t.stats.Unknown}}
	for i, le := range t.stats.FirstBad {
		ts.Stats.FirstBad = append(ts.Stats.FirstBad, lineErrorState{Name: le.Name, Line: le.Line, Event: le.Event, Err: le.Err.Error()})
		if le == t.lastBad {
			ts.LastBad = i
		}
	}
	out, err := snapshot.MarshalAppend(make([]byte, 0, t.snapSize+t.snapSize/8+4096), &ts)
	if err != nil {
		return nil, err
	}
	t.snapSize = len(out)
	return binary.LittleEndian.AppendUint32(out, snapshotSum(out)), nil
}

// snapshotSum is the CRC-32C that ends a snapshot: a state damaged in
// storage is refused rather than replayed into (the codec checks the
// structure of what it decodes, not its meaning).
func snapshotSum(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// RestoreTail continues a tail from its Snapshot; opts are those NewTail
// was given. An error wrapping ErrSnapshotVersion means the snapshot is
// from another sparkdx version.
func RestoreTail(opts Options, data []byte) (*Tail, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("eventlog: %s: restore tail: %d bytes, too short for a snapshot", opts.Name, len(data))
	}
	body := data[:len(data)-4]
	if got, want := binary.LittleEndian.Uint32(data[len(body):]), snapshotSum(body); got != want {
		return nil, fmt.Errorf("eventlog: %s: restore tail: offset %d: checksum %08x, want %08x (damaged snapshot)",
			opts.Name, len(body), got, want)
	}
	var ts tailState
	if err := snapshot.Unmarshal(body, &ts); err != nil {
		return nil, fmt.Errorf("eventlog: %s: restore tail: %w", opts.Name, err)
	}
	if ts.St == nil || ts.St.a == nil || ts.Line < 1 || ts.LastBad >= len(ts.Stats.FirstBad) {
		return nil, fmt.Errorf("eventlog: %s: restore tail: inconsistent snapshot", opts.Name)
	}
	opts.InProgress = true
	opts.Redaction = opts.rules()
	t := &Tail{st: ts.St, opts: opts, carry: ts.Carry, line: ts.Line,
		stats: Stats{Bytes: ts.Stats.Bytes, Lines: ts.Stats.Lines, Events: ts.Stats.Events,
			BadLines: ts.Stats.BadLines, Truncated: ts.Stats.Truncated, Unknown: ts.Stats.Unknown}}
	if t.stats.Unknown == nil {
		t.stats.Unknown = map[string]int{}
	}
	for i, le := range ts.Stats.FirstBad {
		e := &LineError{Name: le.Name, Line: le.Line, Event: le.Event, Err: errors.New(le.Err)}
		t.stats.FirstBad = append(t.stats.FirstBad, e)
		if i == ts.LastBad {
			t.lastBad = e
		}
	}
	return t, nil
}

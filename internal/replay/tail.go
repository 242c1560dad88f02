package replay

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

// Tail replays a log that is still being written: it keeps the replay state
// between calls, so bytes appended later continue the same model.Attempt
// exactly as one Read of the whole log would.
//
// Decoding and applying are separate steps so that a server can decode
// (the costly part) without holding the lock its readers take, and hold it
// only to apply. A Tail is used by one goroutine at a time.
type Tail struct {
	st    *state
	dec   *sparkevent.Decoder // own decoder, made on first use, when Options.Decoders is nil
	opts  Options
	carry []byte // a last line without its '\n' yet
	line  int64  // number of the next line to decode
	stats Stats
	// lastBad is the last non-blank line applied so far when it failed to
	// parse as a cut line does: counted bad while more lines may follow,
	// it is the log's cut last line if End finds nothing after it (as
	// Read of an in-progress log counts it).
	lastBad *LineError
	// snapSize is the size of the last Snapshot, to size the next one.
	snapSize int
}

// TailBatch is the decoded events of some whole lines of a tailed log.
type TailBatch struct {
	c   chunk
	end bool  // from End: the log is complete
	err error // the held-back line grew past Options.MaxLine
}

// Events is the number of events in the batch.
func (b *TailBatch) Events() int { return len(b.c.events) }

// NewTail starts replaying a log into a new attempt; opts.Name names the
// log in errors and opts.Strict makes a malformed line an error of Apply.
func NewTail(opts Options) *Tail {
	a := model.NewAttempt()
	a.LogName = opts.Name
	opts.InProgress = true
	opts.Redaction = opts.rules()
	st := newState(a)
	st.pack = true
	return &Tail{st: st, opts: opts, line: 1,
		stats: Stats{Unknown: map[string]int{}}}
}

// Attempt is the attempt being built; it changes only in Apply. Its
// finished tasks are packed (model.TaskPack), to keep a running
// application small: read its header, executors, jobs and stage counters
// here, and take Model for anything that reads tasks.
func (t *Tail) Attempt() *model.Attempt { return t.st.a }

// Model is the attempt with its tasks unpacked, for views and analyses:
// a copy of the stages (each call unpacks again) sharing the rest with
// Attempt, so it too must be read only while Apply does not run.
func (t *Tail) Model() (*model.Attempt, error) { return t.st.a.Expanded() }

// Stats counts what has been applied so far.
func (t *Tail) Stats() *Stats { return &t.stats }

// Pending is the number of bytes held back: a last line whose '\n' has not
// been written yet.
func (t *Tail) Pending() int { return len(t.carry) }

// Decode decodes the whole lines of data, the bytes of the log that follow
// those given before, and holds back a trailing partial line for the next
// call. It does not touch the attempt. The batch may use data: leave it
// unchanged until the batch is applied.
func (t *Tail) Decode(data []byte) *TailBatch { return t.DecodeInto(nil, data) }

// DecodeInto is Decode into b, a batch already applied (or dropped), whose
// event storage it reuses; nil makes a new batch. A tailer that applies
// each batch before it decodes the next keeps one batch instead of
// allocating a turn's events again each turn.
func (t *Tail) DecodeInto(b *TailBatch, data []byte) *TailBatch {
	if b == nil {
		b = &TailBatch{}
	} else {
		b.c.reuse()
		b.c.buf = nil // a tail's bytes are its caller's
		b.end, b.err = false, nil
	}
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 {
		if len(t.carry)+len(data) > t.opts.maxLine() {
			// Hold no more: the log is failed, and its memory released.
			t.carry = nil
			b.err = &LineError{Name: t.opts.Name, Line: t.line,
				Err: fmt.Errorf("%w (%d bytes)", ErrLineTooLong, t.opts.maxLine())}
			return b
		}
		t.carry = append(t.carry, data...)
		return b
	}
	var head []byte
	if len(t.carry) > 0 {
		// Complete the held-back line alone rather than copy it and all
		// of data into one buffer (a turn's 8 MiB, each turn).
		j := bytes.IndexByte(data, '\n')
		head, data = append(t.carry, data[:j+1]...), data[j+1:]
		i -= j + 1
		t.carry = nil // head keeps its storage until applied
	}
	t.carry = append(t.carry, data[i+1:]...)
	t.decode(b, head, data[:i+1], false)
	return b
}

// End decodes the held-back partial line as the log's last line: the log
// is complete, so a cut line is counted as truncated rather than awaited.
func (t *Tail) End() *TailBatch {
	b := &TailBatch{end: true}
	if len(t.carry) == 0 {
		return b
	}
	buf := t.carry
	t.carry = nil
	t.decode(b, nil, buf, true)
	return b
}

// decode decodes head, a whole line (or nil), and the lines of buf after
// it into b.
func (t *Tail) decode(b *TailBatch, head, buf []byte, last bool) {
	b.c.head, b.c.data, b.c.firstLine, b.c.last = head, buf, t.line, last
	b.c.lines = int64(bytes.Count(buf, []byte{'\n'}))
	if len(buf) > 0 && buf[len(buf)-1] != '\n' {
		b.c.lines++
	}
	if head != nil {
		b.c.lines++
	}
	t.line += b.c.lines
	if t.opts.Decoders != nil {
		d := t.opts.Decoders.get()
		decodeChunk(d, &b.c, t.opts.Name)
		t.opts.Decoders.put(d)
		return
	}
	if t.dec == nil {
		t.dec = sparkevent.NewDecoder()
	}
	decodeChunk(t.dec, &b.c, t.opts.Name)
}

// Decoders lends event decoders to tails (Options.Decoders); it is safe
// for concurrent use, and its zero value is not: use NewDecoders.
type Decoders struct{ pool sync.Pool }

// NewDecoders returns an empty set of decoders.
func NewDecoders() *Decoders {
	return &Decoders{pool: sync.Pool{New: func() any { return sparkevent.NewDecoder() }}}
}

func (d *Decoders) get() *sparkevent.Decoder  { return d.pool.Get().(*sparkevent.Decoder) }
func (d *Decoders) put(x *sparkevent.Decoder) { d.pool.Put(x) }

// Apply applies a decoded batch to the attempt, in the order the batches
// were decoded. With Options.Strict a malformed line is returned as
// an error and the batch's later events are not applied.
func (t *Tail) Apply(b *TailBatch) error {
	if b.err != nil {
		return b.err
	}
	if b.c.data == nil && b.c.head == nil {
		if b.end {
			t.endCut()
		}
		return nil
	}
	err := t.st.applyChunk(&b.c, &t.stats, t.opts)
	t.st.finish()
	if b.c.nonBlank {
		t.lastBad = nil
		if b.c.lastCut && !b.c.cutLast && !t.opts.Strict && len(b.c.bad) > 0 {
			t.lastBad = b.c.bad[len(b.c.bad)-1]
		}
	}
	if b.end && !b.c.nonBlank {
		t.endCut()
	}
	return err
}

// endCut counts a malformed last line that ended in '\n' as the log's cut
// last line instead of a bad one, once the log is known to be complete.
func (t *Tail) endCut() {
	if t.lastBad == nil {
		return
	}
	t.stats.BadLines--
	for i, b := range t.stats.FirstBad {
		if b == t.lastBad {
			t.stats.FirstBad = append(t.stats.FirstBad[:i], t.stats.FirstBad[i+1:]...)
			break
		}
	}
	t.stats.Truncated = true
	t.lastBad = nil
}

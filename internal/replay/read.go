// Package replay applies the events of a Spark event log to a
// model.Attempt the way Spark's AppStatusListener (and, for the SQL tab,
// SQLAppStatusListener) builds the History Server's state; package
// eventlog reads the log's bytes and package sparkevent decodes its lines.
// It owns the line reader (Read, read.go: parallel decoding, in-order applying,
// malformed and cut lines), the replay of opened logs and of directories
// of them (Log, LoadApps), and Tail, the incremental replay of a log that
// is still being written, with its snapshots.
package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

// Options configure Read.
type Options struct {
	// Name names the log in errors (a file name or URL).
	Name string
	// Strict makes a malformed line an error instead of a skipped, counted line.
	Strict bool
	// InProgress says the log is still being written, so a cut last line is
	// expected and never an error.
	InProgress bool
	// Workers is the number of decoding goroutines; 0 means GOMAXPROCS.
	Workers int
	// ChunkSize is the read size; 0 means 256 KiB.
	ChunkSize int
	// SizeHint is the log's stored size, if known: read buffers for small
	// logs start small.
	SizeHint int64
	// Wrap, if set, wraps the decoded reader Log opens (for a progress
	// display); Read itself does not use it.
	Wrap func(r *eventlog.Reader) io.Reader
	// MaxLine bounds one line (one event) in bytes; 0 means DefaultMaxLine.
	// A longer line stops the replay with ErrLineTooLong instead of holding
	// ever more memory (a log of zeros, a corrupt file without newlines).
	MaxLine int
	// MaxRatio bounds decoded ÷ stored bytes of a log Log reads, past 64
	// MiB decoded; 0 means eventlog.DefaultMaxRatio. A log over it fails
	// with eventlog.ErrRatio instead of decoding without end.
	MaxRatio float64
	// Redaction is the policy applied to every event before the replay
	// keeps it (package redact); nil means redact.Default().
	Redaction *redact.Rules
	// Decoders, if set, lends a Tail its decoder for each Decode instead of
	// the tail keeping one: a decoder's parser keeps the memory of the
	// largest line it parsed (a SQL plan: a megabyte or more), which a
	// thousand idle tails should not each hold.
	Decoders *Decoders
}

// rules is the redaction policy: Redaction, or redact.Default() (set once
// per replay or tail, not compiled per chunk).
func (o Options) rules() *redact.Rules {
	if o.Redaction != nil {
		return o.Redaction
	}
	return redact.Default()
}

// DefaultMaxLine is far above Spark's largest real events (a SQL plan or
// an environment of a few MiB).
const DefaultMaxLine = 64 << 20

// ErrLineTooLong is the error for a line longer than Options.MaxLine.
var ErrLineTooLong = errors.New("line longer than the maximum")

func (o Options) maxLine() int {
	if o.MaxLine > 0 {
		return o.MaxLine
	}
	return DefaultMaxLine
}

// Stats counts what a replay read.
type Stats struct {
	Bytes     int64
	Lines     int64
	Events    int64
	BadLines  int64
	Truncated bool           // the last line was cut (in-progress log)
	Unknown   map[string]int // events replay does not interpret, by name
	// FirstBad holds the first few malformed lines, for reporting.
	FirstBad []*LineError
}

// LineError is a malformed line of an event log.
type LineError struct {
	Name  string
	Line  int64
	Event string
	Err   error
}

func (e *LineError) Error() string {
	if e.Event != "" {
		return fmt.Sprintf("eventlog: %s line %d: %s: %v", e.Name, e.Line, e.Event, e.Err)
	}
	return fmt.Sprintf("eventlog: %s line %d: %v", e.Name, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

const maxFirstBad = 10

// chunk is a run of whole lines and, once decoded, their events. Chunks
// are reused once applied (buffer, event slices and task events alike), so
// a replay allocates a handful of them rather than one set per megabyte.
type chunk struct {
	buf          []byte // owned buffer; data is buf[:n]
	data         []byte
	head         []byte // a whole line before data (a tail's held-back line completed), or nil
	firstLine    int64
	lines        int64 // lines in data, counting a last one without '\n'
	last         bool  // data ends the input (its last line may lack '\n')
	events       []sparkevent.Event
	bad          []*LineError
	nonBlank     bool // data has a non-blank line
	lastCut      bool // its last non-blank line fails to parse as a cut line would
	cutLast      bool // lastCut and the chunk ends the input
	cutNoNewline bool // ... and no newline follows that line
	done         chan struct{}
	slab         sparkevent.TaskSlab // task events, valid until the chunk is reused
}

// reuse readies an applied chunk to be filled again.
func (c *chunk) reuse() {
	buf, events, bad, slab := c.buf[:0], c.events[:0], c.bad[:0], c.slab
	clear(events[:cap(events)]) // drop references into the old events
	slab.Reset()
	*c = chunk{buf: buf, events: events, bad: bad, slab: slab}
}

// Read decodes the JSON lines of r and applies them, in order, to a new
// model.Attempt. Lines are split and decoded by worker goroutines and applied
// by the calling goroutine.
func Read(ctx context.Context, r io.Reader, opts Options) (*model.Attempt, *Stats, error) {
	a := model.NewAttempt()
	a.LogName = opts.Name
	stats, err := Into(ctx, a, r, opts)
	return a, stats, err
}

// Into is Read onto an existing attempt (e.g. the next file of a
// rolling log).
func Into(ctx context.Context, a *model.Attempt, r io.Reader, opts Options) (*Stats, error) {
	opts.Redaction = opts.rules()
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	size := opts.ChunkSize
	if size <= 0 {
		// 256 KiB measured as fast as 1 MiB on the big test log (42.8
		// against 43.5 ms/op) with less memory in flight: peak RSS of
		// analyze 50 -> 44 MB, 26.5 -> 19.2 MB allocated per replay.
		size = 256 << 10
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	work := make(chan *chunk, workers)
	order := make(chan *chunk, workers*2)
	free := make(chan *chunk, workers*2+2)
	var readErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := sparkevent.NewDecoder()
			for c := range work {
				decodeChunk(d, c, opts.Name)
				close(c.done)
			}
		}()
	}
	go func() {
		defer close(work)
		defer close(order)
		first := size + size/4
		if opts.SizeHint > 0 {
			first = int(min(int64(first), max(opts.SizeHint+opts.SizeHint/2, 64<<10)))
		}
		readErr = splitChunks(ctx, r, size, first, opts.maxLine(), free, func(c *chunk) bool {
			select {
			case order <- c:
			case <-ctx.Done():
				return false
			}
			select {
			case work <- c:
				return true
			case <-ctx.Done():
				close(c.done)
				return false
			}
		})
	}()

	st := newState(a)
	stats := &Stats{Unknown: map[string]int{}}
	var err error
	for c := range order {
		<-c.done
		if err == nil {
			err = st.applyChunk(c, stats, opts)
			if err != nil {
				cancel()
			}
		}
		if cap(c.buf) > 4*size {
			continue // grown for a long line: let it go, not keep it for the next
		}
		select {
		case free <- c:
		default:
		}
	}
	wg.Wait()
	if err != nil {
		return stats, err
	}
	if readErr != nil && !errors.Is(readErr, context.Canceled) {
		if le, ok := readErr.(*LineError); ok {
			le.Name = opts.Name
			return stats, le
		}
		if _, own := r.(*eventlog.Reader); own { // its errors name the part file
			return stats, readErr
		}
		return stats, fmt.Errorf("eventlog: %s: %w", opts.Name, readErr)
	}
	if e := ctx.Err(); e != nil {
		return stats, e
	}
	st.finish()
	return stats, nil
}

func (st *state) applyChunk(c *chunk, stats *Stats, opts Options) error {
	stats.Bytes += int64(len(c.head) + len(c.data))
	for _, b := range c.bad {
		if c.cutLast && b == c.bad[len(c.bad)-1] && (opts.InProgress || c.cutNoNewline) {
			if opts.Strict && !opts.InProgress {
				return b
			}
			stats.Truncated = true
			continue
		}
		if opts.Strict {
			return b
		}
		stats.BadLines++
		if len(stats.FirstBad) < maxFirstBad {
			stats.FirstBad = append(stats.FirstBad, b)
		}
	}
	rules := opts.rules()
	for _, ev := range c.events {
		stats.Events++
		if u, ok := ev.(sparkevent.Unknown); ok {
			stats.Unknown[u.Name]++
			continue
		}
		st.apply(redactEvent(rules, ev))
	}
	stats.Lines = c.firstLine - 1 + c.lines
	return nil
}

// splitChunks reads r into chunks of whole lines and hands each to emit.
func splitChunks(ctx context.Context, r io.Reader, size, first, maxLine int, free chan *chunk, emit func(*chunk) bool) error {
	var carry []byte
	line := int64(1)
	offset := int64(0) // decoded bytes before buf
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var c *chunk
		select {
		case c = <-free:
			c.reuse()
		default:
			c = &chunk{buf: make([]byte, 0, first)}
		}
		buf := append(c.buf, carry...)
		eof := false
		for !eof {
			if len(buf) == cap(buf) {
				// Doubling: a long line costs at most twice itself in
				// buffers (append grows large slices by a quarter: a 52
				// MB line allocated 283 MB on its way).
				buf = slices.Grow(buf, max(cap(buf), size))
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				return err
			}
			if len(buf) >= size && bytes.IndexByte(buf[len(buf)-n:], '\n') >= 0 {
				break
			}
			if len(buf) > maxLine {
				start := bytes.LastIndexByte(buf, '\n') + 1
				if len(buf)-start > maxLine {
					l := line + int64(bytes.Count(buf[:start], []byte{'\n'}))
					return &LineError{Line: l, Err: fmt.Errorf("%w (%d bytes) at byte %d", ErrLineTooLong, maxLine, offset+int64(start))}
				}
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		c.buf, c.data, c.firstLine, c.last, c.done = buf, buf[:cut], line, eof, make(chan struct{})
		c.lines = int64(bytes.Count(c.data, []byte{'\n'}))
		if eof && cut > 0 && buf[cut-1] != '\n' {
			c.lines++
		}
		line += c.lines
		offset += int64(cut)
		if !emit(c) {
			return ctx.Err()
		}
		if eof {
			return nil
		}
	}
}

func decodeChunk(d *sparkevent.Decoder, c *chunk, name string) {
	d.UseSlab(&c.slab)
	defer d.UseSlab(nil)
	c.events = c.events[:0]
	line := c.firstLine
	if c.head != nil {
		decodeLines(d, c, name, c.head, line)
		line++
	}
	decodeLines(d, c, name, c.data, line)
}

// decodeLines decodes the lines of data, the first numbered line, into c.
func decodeLines(d *sparkevent.Decoder, c *chunk, name string, data []byte, line int64) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var ln []byte
		if i < 0 {
			ln, data = data, nil
		} else {
			ln, data = data[:i], data[i+1:]
		}
		if len(ln) > 0 && ln[len(ln)-1] == '\r' {
			ln = ln[:len(ln)-1]
		}
		if len(bytes.TrimSpace(ln)) > 0 {
			ev, err := d.DecodeLine(ln)
			if err != nil {
				c.bad = append(c.bad, &LineError{Name: name, Line: line, Event: eventNameOf(ln), Err: err})
			} else {
				c.events = append(c.events, ev)
			}
			// The last non-blank line of a log may be cut: Spark was still
			// writing it (with or without a newline after it).
			c.nonBlank = true
			c.lastCut = err != nil && !errors.Is(err, sparkevent.ErrNoEvent) && !errors.Is(err, sparkevent.ErrNotObject)
			c.cutLast = c.last && c.lastCut
			c.cutNoNewline = c.cutLast && i < 0
		}
		line++
	}
}

// eventNameOf finds the "Event" value of a line that did not parse, so an
// error can name it.
func eventNameOf(ln []byte) string {
	const key = `"Event":"`
	i := bytes.Index(ln, []byte(key))
	if i < 0 {
		return ""
	}
	rest := ln[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || j > 200 {
		return ""
	}
	return string(rest[:j])
}

// finish settles what the end of the log implies.
func (st *state) finish() {
	a := st.a
	sort.SliceStable(a.Jobs, func(i, j int) bool { return a.Jobs[i].ID < a.Jobs[j].ID })
	st.sqlm.flush()
}

package eventlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

// Reader streams the decoded bytes of every part of a Log in order,
// inserting nothing between parts (Spark rolls at line boundaries).
//
// A log that is in progress may stop inside a compressed block or a line:
// Read then ends with io.EOF and Truncated reports it (Cut says where). For
// a finished log a stop inside a block is an error naming file and offset.
type Reader struct {
	ctx  context.Context
	log  *Log
	next int // index of the next part to open

	raw    io.ReadCloser // current part's stored bytes
	stored countingReader
	br     *bufio.Reader // read-ahead over stored, reused across parts
	dec    io.ReadCloser // current part's decoded bytes
	part   Part

	decoded   int64 // decoded bytes delivered
	last      byte  // last byte delivered
	cut       error // codec error of an in-progress log's cut block
	err       error // sticky: io.EOF or the error Read returned
	storedAll int64 // stored bytes of the parts already closed
}

// readBufferSize is the read-ahead on each part; the codec readers reuse
// this buffer.
const readBufferSize = 256 << 10

// storeOrFiles is the store the log was listed from, or the local
// filesystem for a Log built by hand.
func (l *Log) storeOrFiles() Store {
	if l.store == nil {
		return FileStore{}
	}
	return l.store
}

// NewReader opens the log's first part.
func (l *Log) NewReader(ctx context.Context) (*Reader, error) {
	l.store = l.storeOrFiles()
	r := &Reader{ctx: ctx, log: l}
	if err := r.openNext(); err != nil {
		return nil, err
	}
	return r, nil
}

// openNext opens part r.next, checks its codec against its first bytes and
// starts decoding; past the last part it sets r.err to io.EOF.
func (r *Reader) openNext() error {
	if r.next >= len(r.log.Parts) {
		r.err = io.EOF
		return nil
	}
	p := r.log.Parts[r.next]
	r.next++
	raw, err := r.log.store.Open(r.ctx, p.Path)
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	r.raw, r.part = raw, p
	r.stored = countingReader{r: raw}
	if r.br == nil {
		r.br = bufio.NewReaderSize(&r.stored, readBufferSize)
	} else {
		r.br.Reset(&r.stored)
	}
	br := r.br
	if err := checkCodec(p, br); err != nil {
		r.closePart()
		return err
	}
	dec, err := codec.NewReader(p.Codec, br)
	if err != nil {
		r.closePart()
		return fmt.Errorf("eventlog: %s: %w", p.Path, err)
	}
	r.dec = dec
	return nil
}

// checkCodec compares the first bytes of part p with the codec its name
// declares. Shorter heads (a log just started) are left to the decoder.
func checkCodec(p Part, br *bufio.Reader) error {
	head, err := br.Peek(codec.SniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("eventlog: %s: %w", p.Path, err)
	}
	if len(head) >= codec.SniffLen {
		if got := codec.Sniff(head); got != p.Codec {
			return fmt.Errorf("eventlog: %s: %w", p.Path, &CodecMismatchError{Named: p.Codec, Content: got})
		}
	}
	return nil
}

// CodecMismatchError is a part whose first bytes are not the codec its name
// declares. Open trusts names; the Reader refuses a mismatch rather than
// guess, since Spark itself would fail on such a file.
type CodecMismatchError struct {
	Named, Content codec.Codec
}

func (e *CodecMismatchError) Error() string {
	content := string(e.Content)
	if e.Content == codec.None {
		content = "plain or unknown"
	}
	return fmt.Sprintf("named %s but the content is %s", e.Named, content)
}

func (r *Reader) closePart() {
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	if r.raw != nil {
		r.raw.Close()
		r.raw = nil
	}
	r.storedAll += r.stored.n
	r.stored = countingReader{}
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for r.err == nil {
		if err := r.ctx.Err(); err != nil {
			r.fail(err)
			break
		}
		if r.dec == nil {
			if err := r.openNext(); err != nil {
				r.fail(err)
			}
			continue
		}
		n, err := r.dec.Read(p)
		if n > 0 {
			r.decoded += int64(n)
			r.last = p[n-1]
		}
		if err != nil {
			r.endPart(err)
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
	return 0, r.err
}

// endPart handles the end of the current part's decoded stream.
func (r *Reader) endPart(err error) {
	lastPart := r.next == len(r.log.Parts)
	switch {
	case err == io.EOF:
		r.closePart()
	case errors.Is(err, io.ErrUnexpectedEOF) && r.log.InProgress && lastPart:
		r.cut = fmt.Errorf("eventlog: %s: %w", r.part.Path, err)
		r.closePart()
		r.err = io.EOF
	default:
		r.fail(fmt.Errorf("eventlog: %s: %w", r.part.Path, err))
	}
}

func (r *Reader) fail(err error) {
	r.closePart()
	r.err = err
}

// Close releases the current part.
func (r *Reader) Close() error {
	r.closePart()
	if r.err == nil {
		r.err = errors.New("eventlog: read after Close")
	}
	return nil
}

// Truncated reports, once Read has returned io.EOF, whether the log stops
// part-way: inside a compressed block or frame of an in-progress log (see
// Cut), or inside a line (the last byte is not a newline).
func (r *Reader) Truncated() bool {
	return r.cut != nil || r.decoded > 0 && r.last != '\n'
}

// Cut returns where an in-progress log's data stops inside a compressed
// block or frame (file, codec, offset; it wraps io.ErrUnexpectedEOF), or nil.
func (r *Reader) Cut() error { return r.cut }

// Err returns the error that ended reading, or nil after a clean io.EOF.
func (r *Reader) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return r.err
}

// DecodedBytes is how many decoded bytes Read has returned.
func (r *Reader) DecodedBytes() int64 { return r.decoded }

// StoredBytes is how many stored bytes have been read, for progress against
// Log.Size.
func (r *Reader) StoredBytes() int64 { return r.storedAll + r.stored.n }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

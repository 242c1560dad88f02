package hprof

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
)

// errShort marks input that ended inside a record: the caller reports it as
// truncation, not as corruption.
var errShort = errors.New("unexpected end of input")

// decoder is a forward-only buffered reader over the dump. It owns its
// buffer so that the hot loop can read fixed-size fields without a call per
// byte and without allocating; off is the dump offset of buf[0].
type decoder struct {
	src io.Reader
	// ahead, when set, is the source instead of src: buf is then a slice
	// of the buffer it read a chunk into (held), not the decoder's own,
	// and fill copies only the bytes a read needs from the last chunk
	// (fillAhead).
	ahead  *readAhead
	held   []byte
	ctx    context.Context // ahead's reads check it, as ctxReader does
	max    int             // the largest read: next(n) needs n <= max
	buf    []byte
	pos    int
	end    int
	off    int64 // dump offset of buf[0]
	idSize int
	srcErr error
}

func newDecoder(src io.Reader, size int) *decoder {
	return &decoder{src: src, buf: make([]byte, size), max: size}
}

// newAheadDecoder decodes the chunks of ahead, whose buffers have room
// for a read of up to ahead.prefix bytes before their data.
func newAheadDecoder(ctx context.Context, ahead *readAhead) *decoder {
	return &decoder{ahead: ahead, ctx: ctx, max: ahead.prefix}
}

// offset returns the dump offset of the next unread byte.
func (d *decoder) offset() int64 { return d.off + int64(d.pos) }

// fill makes at least n bytes (n <= len(buf)) available, or returns errShort
// (or the source's own error) if the input ends first.
func (d *decoder) fill(n int) error {
	if d.end-d.pos >= n {
		return nil
	}
	if d.ahead != nil {
		return d.fillAhead(n)
	}
	if d.pos > 0 {
		copy(d.buf, d.buf[d.pos:d.end])
		d.off += int64(d.pos)
		d.end -= d.pos
		d.pos = 0
	}
	for d.end < n {
		if d.srcErr != nil {
			if d.srcErr == io.EOF {
				return errShort
			}
			return d.srcErr
		}
		m, err := d.src.Read(d.buf[d.end:])
		d.end += m
		if err != nil {
			d.srcErr = err
		}
	}
	return nil
}

// fillAhead is fill from ahead's chunks: the bytes left unread (fewer
// than n <= max) go into the room before the next chunk's data, which
// then is buf, and the buffer they were in goes back.
func (d *decoder) fillAhead(n int) error {
	for d.end-d.pos < n {
		if d.srcErr != nil {
			if d.srcErr == io.EOF {
				return errShort
			}
			return d.srcErr
		}
		if err := d.ctx.Err(); err != nil {
			d.srcErr = err
			return err
		}
		c := d.ahead.take()
		left := d.end - d.pos
		start := d.ahead.prefix - left
		copy(c.buf[start:], d.buf[d.pos:d.end])
		if d.held != nil {
			d.ahead.give(d.held)
		}
		d.off += int64(d.pos)
		d.held = c.buf
		d.buf = c.buf[start : d.ahead.prefix+len(c.b)]
		d.pos, d.end = 0, len(d.buf)
		d.srcErr = c.err
	}
	return nil
}

// atEOF reports whether the input is exhausted at a record boundary.
func (d *decoder) atEOF() (bool, error) {
	if d.end > d.pos {
		return false, nil
	}
	err := d.fill(1)
	if err == errShort {
		return true, nil
	}
	return false, err
}

// next returns the next n bytes (n <= len(buf)); the slice is valid until the
// following call.
func (d *decoder) next(n int) ([]byte, error) {
	if err := d.fill(n); err != nil {
		return nil, err
	}
	b := d.buf[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *decoder) u1() (byte, error) {
	if d.pos < d.end {
		b := d.buf[d.pos]
		d.pos++
		return b, nil
	}
	b, err := d.next(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (d *decoder) u2() (uint16, error) {
	b, err := d.next(2)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

func (d *decoder) u4() (uint32, error) {
	b, err := d.next(4)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
}

func (d *decoder) id() (uint64, error) {
	b, err := d.next(d.idSize)
	if err != nil {
		return 0, err
	}
	return getID(b, d.idSize), nil
}

func getID(b []byte, size int) uint64 {
	if size == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

// skip discards n bytes.
func (d *decoder) skip(n int64) error {
	for n > 0 {
		if d.pos == d.end {
			if err := d.fill(1); err != nil {
				return err
			}
		}
		k := int64(d.end - d.pos)
		if k > n {
			k = n
		}
		d.pos += int(k)
		n -= k
	}
	return nil
}

// each passes the next n bytes to fn in buffer-sized pieces.
func (d *decoder) each(n int64, fn func([]byte)) error {
	for n > 0 {
		if d.pos == d.end {
			if err := d.fill(1); err != nil {
				return err
			}
		}
		k := int64(d.end - d.pos)
		if k > n {
			k = n
		}
		fn(d.buf[d.pos : d.pos+int(k)])
		d.pos += int(k)
		n -= k
	}
	return nil
}

package eventlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

// PartPos is how far a part of a log has been read, and where a reader can
// start again: a compressed part cannot be entered at any decoded offset,
// only at a block, frame or member boundary (see codec.Restart). Plain
// fields, so that a server can store it and resume after a restart. The
// zero PartPos is the start of the part.
type PartPos struct {
	Decoded int64 `json:"decoded"` // decoded bytes delivered so far
	// Restart point: compressed offset of a boundary at or before Decoded,
	// and the decoded offset at that boundary. For a plain part both equal
	// Decoded.
	Comp        int64 `json:"comp"`
	CompDecoded int64 `json:"compDecoded"`
}

func (p PartPos) check() error {
	if p.Decoded < 0 || p.Comp < 0 || p.CompDecoded < 0 || p.CompDecoded > p.Decoded {
		return fmt.Errorf("bad part position %+v", p)
	}
	return nil
}

// ReadPart reads up to limit decoded bytes of part i that follow pos, as a
// tailer of a running log does turn after turn: it reads the stored bytes
// from pos's restart point on (a ranged read on S3), decodes them, drops
// the decoded bytes before pos.Decoded (at most one block or frame), and
// returns what follows with the position to pass next time. eof reports
// that the part had no more bytes right now (fewer than limit).
//
// The last part of an in-progress log may stop inside a compressed block
// or frame: the complete blocks are delivered and eof is set, not an error;
// the next call continues from the last boundary once more is written. For
// any other part such a stop is an error naming file and offset.
func (l *Log) ReadPart(ctx context.Context, i int, pos PartPos, limit int64) (data []byte, next PartPos, eof bool, err error) {
	return l.ReadPartInto(ctx, i, pos, limit, nil)
}

// ReadPartInto is ReadPart reading into buf's storage (its length is
// ignored), which it grows when it is too small: a tailer that applies
// what it read before its next read reuses one buffer instead of
// allocating a turn's bytes again each turn. data is buf's storage when it
// was large enough.
func (l *Log) ReadPartInto(ctx context.Context, i int, pos PartPos, limit int64, buf []byte) (data []byte, next PartPos, eof bool, err error) {
	if i < 0 || i >= len(l.Parts) {
		return nil, pos, false, fmt.Errorf("eventlog: %s: part %d of %d", l.Path, i, len(l.Parts))
	}
	p := l.Parts[i]
	if err := pos.check(); err != nil {
		return nil, pos, false, fmt.Errorf("eventlog: %s: %w", p.Path, err)
	}
	if err := ctx.Err(); err != nil || limit <= 0 {
		return nil, pos, false, err
	}
	c := p.Codec
	if c == "" {
		c = codec.None
	}
	at := codec.Restart{Comp: pos.Comp, Decoded: pos.CompDecoded}
	if c == codec.None {
		at = codec.Restart{Comp: pos.Decoded, Decoded: pos.Decoded}
	}
	raw, err := l.storeOrFiles().OpenRange(ctx, p.Path, at.Comp)
	if err != nil {
		return nil, pos, false, fmt.Errorf("eventlog: %w", err)
	}
	defer raw.Close()
	src := io.Reader(raw)
	if at.Comp == 0 || c != codec.None {
		// A decoder reads in small pieces; plain bytes past the start
		// (the codec sniffed) go straight into the caller's buffer.
		br := bufio.NewReaderSize(raw, readBufferSize)
		if at.Comp == 0 {
			if err := checkCodec(p, br); err != nil {
				return nil, pos, false, err
			}
		}
		src = br
	}
	dec, err := codec.Resume(c, src, at)
	if err != nil {
		return nil, pos, false, fmt.Errorf("eventlog: %s: %w", p.Path, err)
	}
	defer dec.Close()
	cut := func(err error) bool {
		return errors.Is(err, io.ErrUnexpectedEOF) && l.InProgress && i == len(l.Parts)-1
	}
	// Drop what an earlier call delivered past the restart point.
	if skip := pos.Decoded - at.Decoded; skip > 0 {
		if _, err := io.CopyN(io.Discard, dec, skip); err != nil {
			if err == io.EOF || cut(err) {
				return nil, pos, true, nil // not there (any more)
			}
			return nil, pos, false, fmt.Errorf("eventlog: %s: %w", p.Path, err)
		}
	}
	hint := p.Size - at.Comp + 512
	if c != codec.None {
		hint *= 4
	}
	data, err = readUpTo(ctx, dec, limit, hint, buf[:0])
	switch {
	case err == nil:
		eof = int64(len(data)) < limit
	case cut(err):
		eof = true
	default:
		return nil, pos, false, fmt.Errorf("eventlog: %s: %w", p.Path, err)
	}
	r := dec.Restart()
	return data, PartPos{Decoded: pos.Decoded + int64(len(data)), Comp: r.Comp, CompDecoded: r.Decoded}, eof, nil
}

// readUpTo reads r until limit bytes or io.EOF into buf, which it first
// grows to the size hint says (a grown log's listed size is behind: the
// buffer then grows as needed).
func readUpTo(ctx context.Context, r io.Reader, limit, hint int64, buf []byte) ([]byte, error) {
	if want := min(limit, max(hint, 4<<10)); int64(cap(buf)) < want {
		buf = make([]byte, 0, want)
	}
	for int64(len(buf)) < limit {
		if err := ctx.Err(); err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, min(int64(cap(buf)), limit-int64(len(buf))))...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// PartSize is part i's stored size now, asked of its store again: a log
// being written grows after it is listed.
func (l *Log) PartSize(ctx context.Context, i int) (int64, error) {
	if i < 0 || i >= len(l.Parts) {
		return 0, fmt.Errorf("eventlog: %s: part %d of %d", l.Path, i, len(l.Parts))
	}
	e, err := l.storeOrFiles().Stat(ctx, l.Parts[i].Path)
	if err != nil {
		return 0, fmt.Errorf("eventlog: %w", err)
	}
	return e.Size, nil
}

// Head returns up to n stored (not decoded) bytes from the start of part
// i: what a tailer compares turn after turn to notice that a running log
// was replaced by another under the same name.
func (l *Log) Head(ctx context.Context, i, n int) ([]byte, error) {
	if i < 0 || i >= len(l.Parts) {
		return nil, fmt.Errorf("eventlog: %s: part %d of %d", l.Path, i, len(l.Parts))
	}
	raw, err := l.storeOrFiles().OpenRange(ctx, l.Parts[i].Path, 0)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	defer raw.Close()
	b, err := io.ReadAll(io.LimitReader(raw, int64(n)))
	if err != nil {
		return nil, fmt.Errorf("eventlog: %s: head: %w", l.Parts[i].Path, err)
	}
	return b, nil
}

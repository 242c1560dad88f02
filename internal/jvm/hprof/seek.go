package hprof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// Pass 3 names the references of a few hundred nodes. Over a dump it can
// seek in (an uncompressed file), it reads only the records around them:
// pass 1 marks where every markEvery-th node's record starts, and pass 3
// starts at the mark before each node it names, instead of reading the
// whole dump a third time.

// markEvery is the default node stride of the marks: a mark is 24 bytes,
// and a seek reads at most this many records before its node.
const markEvery = 1024

// mark is where node's record starts, and the end of the HEAP DUMP
// (SEGMENT) record holding it.
type mark struct {
	node    uint32
	at, end int64
}

// markNode records, in pass 1, that the sub-record at offset at in the
// segment ending at end was node v (the node numbered last).
func (g *graph) markNode(v uint32, at, end int64) {
	if int(v) >= len(g.marks)*g.markEvery {
		g.marks = append(g.marks, mark{node: v, at: at, end: end})
	}
}

// namePass runs pass 3: by seeking when the dump opens as an io.ReaderAt
// and pass 1 left marks, else by reading the whole dump.
func namePass(ctx context.Context, open Opener, opts Options, g *graph) error {
	rc, err := open()
	if err != nil {
		return err
	}
	ra, ok := rc.(io.ReaderAt)
	if !ok || len(g.marks) == 0 {
		rc.Close()
		_, _, err := pass(ctx, open, opts, g, true)
		return err
	}
	defer rc.Close()
	return seekNames(ctx, ra, opts, g)
}

// seekNames reads the records of the nodes pass 3 names, each from the
// mark before it, going on from where it is when that is closer.
func seekNames(ctx context.Context, ra io.ReaderAt, opts Options, g *graph) error {
	opts.MaxStrings = -1
	s := newScanner(ctx, nil, opts)
	s.g, s.refs = g, true
	s.top.max = 0
	s.utf8 = g.meta.utf8 // static field names; the classes stay the scanner's own
	s.d.idSize = g.meta.d.idSize
	end := int64(-1) // of the current segment; -1: nowhere yet
	for i, word := range g.wanted {
		for ; word != 0; word &= word - 1 {
			v := uint32(i*64 + bits.TrailingZeros64(word))
			if end >= 0 && g.next > v {
				continue // read on the way to an earlier node
			}
			k := markBefore(g.marks, v)
			if end < 0 || g.next < g.marks[k].node {
				m := g.marks[k]
				s.d.seek(ctx, ra, m.at)
				g.next, end = m.node, m.end
			}
			var err error
			if end, err = s.readThrough(v, end); err != nil {
				return err
			}
		}
	}
	return nil
}

// markBefore is the index of the last mark at or before node v.
func markBefore(marks []mark, v uint32) int {
	lo, hi := 0, len(marks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if marks[m].node <= v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo-1, 0)
}

// readThrough reads sub-records (and the record headers between
// segments) until node v's is read, and returns the end of the segment it
// stopped in.
func (s *scanner) readThrough(v uint32, end int64) (int64, error) {
	for s.g.next <= v {
		at := s.d.offset()
		if at == end {
			h, err := s.d.next(9)
			if err != nil {
				return 0, fmt.Errorf("offset %d: record header: %w", at, shortIsChanged(err))
			}
			length := int64(uint32(h[5])<<24 | uint32(h[6])<<16 | uint32(h[7])<<8 | uint32(h[8]))
			if h[0] == tagHeapDump || h[0] == tagHeapDumpSegment {
				end = s.d.offset() + length
			} else if err := s.d.skip(length); err != nil {
				return 0, fmt.Errorf("offset %d: record 0x%02X: %w", at, h[0], shortIsChanged(err))
			} else {
				end = s.d.offset()
			}
			continue
		}
		tag, err := s.d.u1()
		if err == nil {
			err = s.sub(tag)
		}
		if err != nil {
			return 0, fmt.Errorf("offset %d: sub-record 0x%02X: %w", at, tag, shortIsChanged(err))
		}
		if s.d.offset() > end {
			return 0, fmt.Errorf("offset %d: sub-records run %d bytes past the segment end", at, s.d.offset()-end)
		}
	}
	return end, nil
}

// shortIsChanged says why a dump pass 1 read whole ends early now.
func shortIsChanged(err error) error {
	if errors.Is(err, errShort) {
		return fmt.Errorf("%w (the dump changed since pass 1?)", err)
	}
	return err
}

// seek points the decoder at offset at of ra, read a little at a time: a
// seek is followed by a few records, not the rest of the dump.
func (d *decoder) seek(ctx context.Context, ra io.ReaderAt, at int64) {
	d.src = ctxReader{ctx, smallReads{io.NewSectionReader(ra, at, 1<<62)}}
	d.pos, d.end, d.off, d.srcErr = 0, 0, at, nil
}

// smallReads caps each read at 64 KiB.
type smallReads struct{ r io.Reader }

func (s smallReads) Read(p []byte) (int, error) {
	return s.r.Read(p[:min(len(p), 64<<10)])
}

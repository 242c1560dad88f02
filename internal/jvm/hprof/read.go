package hprof

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"
)

// Options tune a read. The zero value infers everything.
type Options struct {
	Layout     LayoutChoice // restrict layout inference (e.g. --compressed-oops=false)
	Top        int          // largest objects and duplicate strings to report; 0: 20
	MaxStrings int          // bound on tracked Strings and byte/char arrays; 0: 2M; <0: off
	BufferSize int          // read buffer; 0: 4 MiB
	SizeHint   int64        // expected uncompressed size, to size tables up front; 0: unknown
}

const (
	defaultTop        = 20
	defaultMaxStrings = 2 << 20
	defaultBuffer     = 4 << 20
)

// Read scans an uncompressed dump from r. A dump that ends inside a record
// is not an error: the histogram so far comes back with Truncated set.
// Cancelling ctx stops the scan at the next buffer refill.
func Read(ctx context.Context, r io.Reader, opts Options) (*Histogram, error) {
	h, err := newScanner(ctx, r, opts).read()
	if err != nil {
		return nil, err
	}
	return h, nil
}

func newScanner(ctx context.Context, r io.Reader, opts Options) *scanner {
	opts.BufferSize = cmp.Or(max(opts.BufferSize, 0), defaultBuffer)
	return scannerOn(newDecoder(ctxReader{ctx, r}, opts.BufferSize), opts)
}

// newAheadScanner reads ra's chunks in place (newAheadDecoder).
func newAheadScanner(ctx context.Context, ra *readAhead, opts Options) *scanner {
	opts.BufferSize = ra.prefix
	return scannerOn(newAheadDecoder(ctx, ra), opts)
}

func scannerOn(d *decoder, opts Options) *scanner {
	if opts.Top <= 0 {
		opts.Top = defaultTop
	}
	if opts.MaxStrings == 0 {
		opts.MaxStrings = defaultMaxStrings
	}
	s := &scanner{
		d:         d,
		opts:      opts,
		cands:     candidateLayouts(8),
		utf8:      map[uint64]string{},
		loadNames: map[uint64]uint64{},
		classes:   map[uint64]*classInfo{},
		top:       topObjects{max: 4 * opts.Top},
	}
	if opts.MaxStrings > 0 {
		s.strings = newStringTracker(opts.MaxStrings, opts.SizeHint)
	}
	return s
}

// read scans to the end and builds the histogram.
func (s *scanner) read() (*Histogram, error) {
	err := s.run()
	if s.pipe != nil {
		s.pipe.close() // the graph holds every object read
	}
	truncated := errors.Is(err, errShort) || errors.Is(err, io.ErrUnexpectedEOF)
	if err != nil && !truncated {
		return nil, err
	}
	if s.version == "" {
		return nil, fmt.Errorf("offset 0: empty or truncated header")
	}
	h := s.result()
	h.BytesRead = s.d.off + int64(s.d.end)
	if truncated {
		h.Truncated = true
		h.TruncatedAt = h.BytesRead
	}
	return h, nil
}

// ReadFile reads a dump file, gzip-compressed or not. Offsets in errors are
// in the uncompressed stream.
func ReadFile(ctx context.Context, path string, opts Options) (*Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hprof: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && opts.SizeHint == 0 {
		opts.SizeHint = fi.Size()
	}
	r, gz, err := maybeGzip(f)
	if err != nil {
		return nil, fmt.Errorf("hprof: %s: %w", filepath.Base(path), err)
	}
	if gz {
		opts.SizeHint *= 6 // jcmd -gz dumps shrink about that much
	}
	h, err := Read(ctx, r, opts)
	if err != nil {
		return nil, fmt.Errorf("hprof: %s %w", filepath.Base(path), err)
	}
	return h, nil
}

// maybeGzip returns a reader of f's dump: gunzipped when f starts with the
// gzip magic, else f itself from its start (the decoder has its own large
// buffer).
func maybeGzip(f *os.File) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(f, 1<<20)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, false, fmt.Errorf("gzip: %w", err)
		}
		return zr, true, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false, err
	}
	return f, false, nil
}

// ctxReader makes a long scan cancellable without a check per record.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

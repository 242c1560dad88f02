package codec

import (
	"bufio"
	"errors"
	"io"
)

// blockDecoder decodes the block-structured streams (LZ4Block, snappy-java,
// LZF): next reads one block from s and returns its decoded bytes, valid
// until the following call, or io.EOF where the stream may cleanly end.
type blockDecoder interface {
	next(s *source) ([]byte, error)
}

// source is the compressed input of a block decoder with its offset.
type source struct {
	codec Codec
	br    *bufio.Reader
	off   int64  // compressed bytes consumed
	buf   []byte // payload scratch, reused
}

// errorAt builds an *Error at compressed offset off.
func (s *source) errorAt(off int64, msg string, err error) *Error {
	return &Error{Codec: s.codec, Offset: off, Msg: msg, Err: err}
}

// readFull fills p. At a clean stream end (no byte read) it returns io.EOF
// when eofOK; a partial read is an *Error wrapping io.ErrUnexpectedEOF
// naming what was being read and where it started.
func (s *source) readFull(p []byte, what string, eofOK bool) error {
	start := s.off
	n, err := io.ReadFull(s.br, p)
	s.off += int64(n)
	switch {
	case err == nil:
		return nil
	case n == 0 && errors.Is(err, io.EOF) && eofOK:
		return io.EOF
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return s.errorAt(start, what+" cut short", io.ErrUnexpectedEOF)
	}
	return s.errorAt(s.off, "read "+what, err)
}

// maxPayload bounds one block's stored or decoded size; Spark writes 32 KiB
// to a few MiB, lz4-java allows 32 MiB.
const maxPayload = 64 << 20

// payload reads the n bytes of a block body into the scratch buffer. The
// buffer grows with the bytes actually present, so a corrupt length in a
// short stream does not allocate what it claims.
func (s *source) payload(n int, what string) ([]byte, error) {
	if cap(s.buf) >= n {
		b := s.buf[:n]
		return b, s.readFull(b, what, false)
	}
	start := s.off
	b := s.buf[:0]
	for len(b) < n {
		step := min(n-len(b), max(len(b), 64<<10))
		b = append(b, make([]byte, step)...)
		if err := s.readFull(b[len(b)-step:], what, false); err != nil {
			s.buf = b[:0]
			var e *Error
			if errors.As(err, &e) && errors.Is(err, io.ErrUnexpectedEOF) {
				e.Offset = start
			}
			return nil, err
		}
	}
	s.buf = b
	return b, nil
}

// restartable is implemented by a blockDecoder whose block boundaries are
// not always restart points (the snappy framing format).
type restartable interface {
	restartable() bool
}

// blockReader serves the decoded blocks of a blockDecoder one at a time.
type blockReader struct {
	src       source
	dec       blockDecoder
	out       []byte  // decoded bytes not yet returned
	err       error   // sticky: io.EOF, a stream error, or errClosed
	delivered int64   // decoded bytes returned, counted from the stream start
	block     Restart // boundary before the block out belongs to
	start     Restart // where reading started
}

var errClosed = errors.New("codec: read after Close")

func newBlockReader(c Codec, r io.Reader, dec blockDecoder) *blockReader {
	return resumeBlockReader(c, r, dec, Restart{})
}

// resumeBlockReader starts dec at restart point at; r begins there.
func resumeBlockReader(c Codec, r io.Reader, dec blockDecoder, at Restart) *blockReader {
	return &blockReader{src: source{codec: c, br: bufferedReader(r), off: at.Comp}, dec: dec,
		delivered: at.Decoded, block: at, start: at}
}

func (r *blockReader) fill() bool {
	for len(r.out) == 0 {
		if r.err != nil {
			return false
		}
		r.block = Restart{Comp: r.src.off, Decoded: r.delivered}
		r.out, r.err = r.dec.next(&r.src)
	}
	return true
}

// Restart implements RestartReader: the end of the last block wholly
// returned, or the start of the one being returned.
func (r *blockReader) Restart() Restart {
	if d, ok := r.dec.(restartable); ok && !d.restartable() {
		return r.start
	}
	if len(r.out) == 0 && r.err == nil {
		return Restart{Comp: r.src.off, Decoded: r.delivered}
	}
	return r.block
}

func (r *blockReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !r.fill() {
		return 0, r.err
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	r.delivered += int64(n)
	return n, nil
}

// WriteTo hands each decoded block to w without an extra copy.
func (r *blockReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for r.fill() {
		n, err := w.Write(r.out)
		total += int64(n)
		r.delivered += int64(n)
		r.out = r.out[n:]
		if err != nil {
			return total, err
		}
	}
	if r.err == io.EOF {
		return total, nil
	}
	return total, r.err
}

func (r *blockReader) Close() error {
	r.out, r.src.buf, r.src.br = nil, nil, nil
	r.err = errClosed
	return nil
}

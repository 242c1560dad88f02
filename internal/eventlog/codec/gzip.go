package codec

import (
	"compress/gzip"
	"errors"
	"io"
)

// gzipReader decodes multi-member gzip (Databricks' rotated event-log
// parts) one member at a time, so that each member boundary is a restart
// point. A member's header is read on the first Read that needs it, so an
// empty stream is simply empty.
type gzipReader struct {
	cr       countingReader
	zr       *gzip.Reader
	inMember bool
	memberAt Restart // start of the current (or next) member
	decoded  int64   // decoded bytes returned, counted from the stream start
	err      error
}

func newGzipReader(r io.Reader) *gzipReader { return resumeGzipReader(r, Restart{}) }

func resumeGzipReader(r io.Reader, at Restart) *gzipReader {
	return &gzipReader{cr: countingReader{r: bufferedReader(r), n: at.Comp}, memberAt: at, decoded: at.Decoded}
}

// startMember reads the next member's header; at a clean end of the
// stream it sets g.err to io.EOF.
func (g *gzipReader) startMember() bool {
	if g.inMember {
		return true
	}
	g.memberAt = Restart{Comp: g.cr.n, Decoded: g.decoded}
	var err error
	if g.zr == nil {
		g.zr, err = gzip.NewReader(&byteCounter{&g.cr})
	} else {
		err = g.zr.Reset(&byteCounter{&g.cr})
	}
	if err != nil {
		if err == io.EOF && g.cr.n == g.memberAt.Comp {
			g.err = io.EOF
		} else {
			g.err = g.wrap(err)
		}
		return false
	}
	g.zr.Multistream(false)
	g.inMember = true
	return true
}

func (g *gzipReader) Read(p []byte) (int, error) {
	for g.err == nil {
		if !g.startMember() {
			break
		}
		n, err := g.zr.Read(p)
		g.decoded += int64(n)
		if err == io.EOF {
			g.inMember = false
		} else if err != nil {
			g.err = g.wrap(err)
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
	return 0, g.err
}

// Restart implements RestartReader: the end of the last member wholly
// returned, or the start of the member being returned.
func (g *gzipReader) Restart() Restart {
	if !g.inMember && g.err == nil {
		return Restart{Comp: g.cr.n, Decoded: g.decoded}
	}
	return g.memberAt
}

func (g *gzipReader) wrap(err error) error {
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Codec: Gzip, Offset: g.cr.n, Msg: "member cut short", Err: io.ErrUnexpectedEOF}
	}
	return &Error{Codec: Gzip, Offset: g.cr.n, Err: err}
}

func (g *gzipReader) Close() error {
	g.zr = nil
	g.err = errClosed
	return nil
}

// byteCounter gives gzip the io.ByteReader it wants (so it adds no buffer of
// its own and the count stays exact) over the buffered, counted input.
type byteCounter struct{ c *countingReader }

func (b *byteCounter) Read(p []byte) (int, error) { return b.c.Read(p) }

func (b *byteCounter) ReadByte() (byte, error) {
	c, err := b.c.r.(io.ByteReader).ReadByte()
	if err == nil {
		b.c.n++
	}
	return c, err
}

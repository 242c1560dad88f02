package codec

import (
	"compress/gzip"
	"errors"
	"io"
)

// gzipReader decodes multi-member gzip (Databricks' rotated event-log
// parts). The header is read on the first Read so that an empty stream is
// simply empty.
type gzipReader struct {
	cr  countingReader
	zr  *gzip.Reader
	err error
}

func newGzipReader(r io.Reader) *gzipReader {
	return &gzipReader{cr: countingReader{r: bufferedReader(r)}}
}

func (g *gzipReader) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, err := gzip.NewReader(&byteCounter{&g.cr})
		if err != nil {
			if err == io.EOF && g.cr.n == 0 {
				g.err = io.EOF
			} else {
				g.err = g.wrap(err)
			}
			return 0, g.err
		}
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	if err != nil {
		g.err = g.wrap(err)
	}
	if n > 0 {
		return n, nil
	}
	return 0, g.err
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

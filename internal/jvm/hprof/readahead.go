package hprof

import "io"

// readAhead reads its source on a goroutine of its own, a few chunks
// ahead of the parser: on a machine with two cores the file's reads (the
// kernel's copies from the page cache, or gunzip) run beside the parsing
// instead of between its steps. A decoder reads the chunks where they
// were read (take, newAheadDecoder): each buffer has room, before its
// data, for the end of the last chunk that a record runs past (prefix
// bytes), so that only those bytes are copied. It costs readAheadChunks
// buffers of memory, of which the prefixes are mostly never touched.
type readAhead struct {
	full   chan aheadChunk // chunks read, in order
	free   chan []byte     // buffers the decoder is done with
	done   chan struct{}   // closed by close: the reader stops
	ended  chan struct{}   // closed by the reader as it returns
	prefix int             // bytes before each buffer's data
}

type aheadChunk struct {
	b   []byte // the data: buf[prefix:prefix+n] of its buffer
	buf []byte // the whole buffer
	err error  // the source's error after b (io.EOF at its end)
}

const (
	readAheadChunk  = 1 << 20
	readAheadChunks = 3
)

// newReadAhead starts reading src in chunks of chunk bytes, each buffer
// with prefix bytes of room before its data (take); close stops it.
func newReadAhead(src io.Reader, prefix, chunk int) *readAhead {
	r := &readAhead{
		full:   make(chan aheadChunk, readAheadChunks),
		free:   make(chan []byte, readAheadChunks),
		done:   make(chan struct{}),
		ended:  make(chan struct{}),
		prefix: prefix,
	}
	for range readAheadChunks {
		r.free <- make([]byte, prefix+chunk)
	}
	go r.fill(src)
	return r
}

func (r *readAhead) fill(src io.Reader) {
	defer close(r.ended)
	for {
		var b []byte
		select {
		case b = <-r.free:
		case <-r.done:
			return
		}
		n, err := io.ReadFull(src, b[r.prefix:])
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		select {
		case r.full <- aheadChunk{b: b[r.prefix : r.prefix+n], buf: b, err: err}:
		case <-r.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// take returns the next chunk read; the decoder gives its buffer back
// (give) once no slice of it is in use.
func (r *readAhead) take() aheadChunk { return <-r.full }

// give hands back a buffer take returned.
func (r *readAhead) give(buf []byte) { r.free <- buf }

// close stops the reader and waits for it: the source may be closed
// after it.
func (r *readAhead) close() {
	close(r.done)
	<-r.ended
}

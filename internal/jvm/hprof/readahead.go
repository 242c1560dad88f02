package hprof

import "io"

// readAhead reads its source on a goroutine of its own, a few chunks
// ahead of the parser: on a machine with two cores the file's reads (the
// kernel's copies from the page cache, or gunzip) run beside the parsing
// instead of between its steps. It costs the parser a copy of each chunk
// and readAheadChunks chunks of memory.
type readAhead struct {
	full  chan aheadChunk // chunks read, in order
	free  chan []byte     // buffers the parser is done with
	done  chan struct{}   // closed by close: the reader stops
	ended chan struct{}   // closed by the reader as it returns
	cur   aheadChunk      // the chunk Read takes from
	buf   []byte          // cur's buffer, to give back once taken
}

type aheadChunk struct {
	b   []byte
	err error // the source's error after b (io.EOF at its end)
}

const (
	readAheadChunk  = 1 << 20
	readAheadChunks = 3
)

// newReadAhead starts reading src; close stops it.
func newReadAhead(src io.Reader) *readAhead {
	r := &readAhead{
		full:  make(chan aheadChunk, readAheadChunks),
		free:  make(chan []byte, readAheadChunks),
		done:  make(chan struct{}),
		ended: make(chan struct{}),
	}
	for range readAheadChunks {
		r.free <- make([]byte, readAheadChunk)
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
		n, err := io.ReadFull(src, b)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		select {
		case r.full <- aheadChunk{b[:n], err}:
		case <-r.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read copies from the chunk read ahead, and waits for the next one once
// it is taken.
func (r *readAhead) Read(p []byte) (int, error) {
	for len(r.cur.b) == 0 {
		if r.cur.err != nil {
			return 0, r.cur.err
		}
		if r.buf != nil {
			r.free <- r.buf[:cap(r.buf)]
		}
		r.cur = <-r.full
		r.buf = r.cur.b
	}
	n := copy(p, r.cur.b)
	r.cur.b = r.cur.b[n:]
	return n, nil
}

// close stops the reader and waits for it: the source may be closed
// after it.
func (r *readAhead) close() {
	close(r.done)
	<-r.ended
}

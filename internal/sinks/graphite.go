package sinks

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// graphiteQuiet is how long a connection may pause before what it sent is
// flushed: Spark's reporter connects, writes one report and closes, but a
// relay may keep a connection open.
const graphiteQuiet = time.Second

// acceptGraphite serves GraphiteSink connections, at most MaxConns at
// once: one more is closed at once and counted (a sender retries at its
// next period).
func (r *Receiver) acceptGraphite(ctx context.Context, wg *sync.WaitGroup) {
	slots := make(chan struct{}, r.cfg.MaxConns)
	for {
		conn, err := r.graphite.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like: do not spin
			continue
		}
		select {
		case slots <- struct{}{}:
		default:
			r.stats.connsRejected.Add(1)
			conn.Close()
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			r.serveGraphite(ctx, conn)
		})
	}
}

// serveGraphite reads one connection's lines until it closes, goes idle
// past IdleTimeout or ctx ends.
func (r *Receiver) serveGraphite(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	b := newBatch(sinkGraphite, r.cfg.MaxBatch)
	defer r.flush(ctx, b)
	lr := lineReader{max: r.cfg.MaxLineBytes, partial: make([]byte, 0, r.cfg.MaxLineBytes)}
	chunk := make([]byte, 32<<10)
	var idle time.Duration
	for {
		if err := conn.SetReadDeadline(time.Now().Add(graphiteQuiet)); err != nil {
			return
		}
		n, err := conn.Read(chunk)
		tooLong := lr.feed(chunk[:n], func(line []byte) {
			p, perr := ParseGraphite(line)
			if perr != nil {
				r.stats.count(sinkGraphite, outcomeOf(perr))
				return
			}
			r.take(ctx, b, p)
		})
		r.stats.add(sinkGraphite, outcomeTooLong, tooLong)
		switch {
		case err == nil:
			idle = 0
		case errors.Is(err, os.ErrDeadlineExceeded):
			r.flush(ctx, b)
			if idle += graphiteQuiet; idle >= r.cfg.IdleTimeout {
				return
			}
		default: // EOF, reset, closed at shutdown; a last line without its newline is not complete
			if len(lr.partial) > 0 || lr.skipping {
				r.stats.count(sinkGraphite, outcomeBad)
			}
			return
		}
	}
}

// lineReader splits a stream into lines of at most max bytes; a longer
// one is skipped to its newline without being kept.
type lineReader struct {
	max      int
	partial  []byte // the start of a line whose newline has not come
	skipping bool   // inside a line past max
}

// feed calls line for each complete line in data, and returns how many
// lines it skipped as too long.
func (lr *lineReader) feed(data []byte, line func([]byte)) (tooLong int) {
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			if !lr.skipping {
				if len(lr.partial)+len(data) > lr.max {
					lr.partial, lr.skipping = lr.partial[:0], true
					tooLong++
				} else {
					lr.partial = append(lr.partial, data...)
				}
			}
			return tooLong
		}
		part := data[:nl]
		data = data[nl+1:]
		switch {
		case lr.skipping:
			lr.skipping = false
		case len(lr.partial)+len(part) > lr.max:
			lr.partial = lr.partial[:0]
			tooLong++
		case len(lr.partial) > 0:
			lr.partial = append(lr.partial, part...)
			line(lr.partial)
			lr.partial = lr.partial[:0]
		default:
			line(part)
		}
	}
	return tooLong
}

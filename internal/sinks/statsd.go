package sinks

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"time"
)

const (
	// statsdQuiet ends a process's report: StatsdSink sends a report as
	// one datagram per metric within milliseconds, then nothing for its
	// period (1 s at least), so a pause this long closes the report.
	statsdQuiet = 300 * time.Millisecond
	// statsdMaxReport bounds a report that never pauses.
	statsdMaxReport = 2 * time.Second
)

// process is one Spark process (application and executor).
type process struct{ app, exec string }

// report is a process's report being received: its points share the time
// of its first datagram — StatsD carries none — so that its pools sum as
// a Graphite report's do, however many processes send at once.
type report struct {
	stamp, last time.Time
}

// statsdReader is the state of the one goroutine reading datagrams.
type statsdReader struct {
	r       *Receiver
	b       *batch
	open    map[process]*report
	checked time.Time
}

// serveStatsd reads datagrams until ctx ends; a process's report is
// passed on once the process pauses, not cut by another's.
func (r *Receiver) serveStatsd(ctx context.Context) {
	sr := &statsdReader{r: r, b: newBatch(sinkStatsd, r.cfg.MaxBatch), open: map[process]*report{}}
	defer r.flush(ctx, sr.b)
	buf := make([]byte, 64<<10)
	for {
		if err := r.statsd.SetReadDeadline(time.Now().Add(statsdQuiet)); err != nil {
			return
		}
		n, _, err := r.statsd.ReadFrom(buf)
		now := r.cfg.Now()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				sr.flushQuiet(ctx, now)
				continue
			}
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient read error (ICMP unreachable on some systems)
		}
		sr.datagram(ctx, buf[:n], now)
		if now.Sub(sr.checked) >= statsdQuiet {
			sr.flushQuiet(ctx, now)
		}
	}
}

// datagram takes a datagram's lines (one per datagram from Spark;
// several, newline-separated, from relays).
func (sr *statsdReader) datagram(ctx context.Context, data []byte, now time.Time) {
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		switch {
		case len(line) == 0:
		case len(line) > sr.r.cfg.MaxLineBytes:
			sr.r.stats.count(sinkStatsd, outcomeTooLong)
		default:
			p, err := ParseStatsd(line, 0)
			if err != nil {
				sr.r.stats.count(sinkStatsd, outcomeOf(err))
				continue
			}
			k := process{p.App, p.Executor}
			rep := sr.open[k]
			if rep == nil || now.Sub(rep.last) > statsdQuiet || now.Sub(rep.stamp) > statsdMaxReport {
				if rep == nil && len(sr.open) >= sr.r.cfg.MaxApps*64 {
					sr.r.stats.count(sinkStatsd, outcomeRefused) // more processes at once than any fleet has
					continue
				}
				rep = &report{stamp: now}
				sr.open[k] = rep
			}
			rep.last = now
			p.TimeMs = rep.stamp.UnixMilli()
			sr.r.take(ctx, sr.b, p)
		}
	}
}

// flushQuiet passes on the reports of the processes that paused (or
// outgrew statsdMaxReport), and keeps the others open.
func (sr *statsdReader) flushQuiet(ctx context.Context, now time.Time) {
	sr.checked = now
	done := map[process]bool{}
	for k, rep := range sr.open {
		if now.Sub(rep.last) > statsdQuiet || now.Sub(rep.stamp) > statsdMaxReport {
			done[k] = true
			delete(sr.open, k)
		}
	}
	if len(done) > 0 {
		sr.r.flush(ctx, sr.b.split(func(app, exec string) bool { return done[process{app, exec}] }))
	}
}

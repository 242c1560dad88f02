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
	// statsdQuiet ends a burst: StatsdSink sends a report as one datagram
	// per metric within milliseconds, then nothing for its period (1 s at
	// least), so a pause this long closes the report.
	statsdQuiet = 300 * time.Millisecond
	// statsdMaxBurst bounds a burst that never pauses (several senders).
	statsdMaxBurst = 2 * time.Second
)

// serveStatsd reads datagrams until ctx ends. A burst's points share its
// first datagram's time — StatsD carries none — so that one report's
// pools sum as the Graphite ones do.
func (r *Receiver) serveStatsd(ctx context.Context) {
	b := newBatch(sinkStatsd, r.cfg.MaxBatch)
	defer r.flush(ctx, b)
	buf := make([]byte, 64<<10)
	var burst time.Time // zero: no burst open
	for {
		if err := r.statsd.SetReadDeadline(time.Now().Add(statsdQuiet)); err != nil {
			return
		}
		n, _, err := r.statsd.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				r.flush(ctx, b)
				burst = time.Time{}
				continue
			}
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient read error (ICMP unreachable on some systems)
		}
		now := r.cfg.Now()
		if !burst.IsZero() && now.Sub(burst) > statsdMaxBurst {
			r.flush(ctx, b)
			burst = time.Time{}
		}
		if burst.IsZero() {
			burst = now
		}
		r.statsdDatagram(ctx, b, buf[:n], burst.UnixMilli())
	}
}

// statsdDatagram takes a datagram's lines (one per datagram from Spark;
// several, newline-separated, from relays).
func (r *Receiver) statsdDatagram(ctx context.Context, b *batch, data []byte, stampMs int64) {
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		switch {
		case len(line) == 0:
		case len(line) > r.cfg.MaxLineBytes:
			r.stats.count(sinkStatsd, outcomeTooLong)
		default:
			p, err := ParseStatsd(line, stampMs)
			if err != nil {
				r.stats.count(sinkStatsd, outcomeOf(err))
				continue
			}
			r.take(ctx, b, p)
		}
	}
}

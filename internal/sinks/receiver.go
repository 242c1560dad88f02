package sinks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

const (
	sinkGraphite = "graphite"
	sinkStatsd   = "statsd"
)

// Config configures a Receiver. Zero bounds take the defaults below.
type Config struct {
	GraphiteAddr string // TCP address for GraphiteSink (protocol tcp); "" for none
	StatsdAddr   string // UDP address for StatsdSink; "" for none
	// Sink receives each batch as OTLP, the way an agent's push arrives
	// (serve's IngestMetrics: samples, Delta). It may drop points in place.
	Sink   func(ctx context.Context, md *metricpb.MetricsData) error
	Logger *slog.Logger
	Now    func() time.Time

	MaxLineBytes    int           // longer lines are discarded unread (default 1024)
	MaxConns        int           // GraphiteSink connections open at once (default 64)
	IdleTimeout     time.Duration // a connection that sends nothing this long is closed (default 2m)
	MaxBatch        int           // points per OTLP batch (default 20000)
	MaxApps         int           // applications with series in /metrics (default 256)
	MaxSeriesPerApp int           // series of one application (default 20000: serve's bound on an agent's)
	StaleAfter      time.Duration // a series not sent this long leaves /metrics (default 10m)
}

func (c *Config) defaults() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MaxLineBytes, 1024)
	def(&c.MaxConns, 64)
	def(&c.MaxBatch, 20_000)
	def(&c.MaxApps, 256)
	def(&c.MaxSeriesPerApp, 20_000)
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 2 * time.Minute
	}
	if c.StaleAfter == 0 {
		c.StaleAfter = 10 * time.Minute
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate fails fast on a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.GraphiteAddr == "" && c.StatsdAddr == "":
		return errors.New("sinks: neither a Graphite nor a StatsD address")
	case c.MaxLineBytes < 0 || c.MaxConns < 0 || c.MaxBatch < 0 || c.MaxApps < 0 || c.MaxSeriesPerApp < 0:
		return errors.New("sinks: negative bound")
	case c.MaxLineBytes > 0 && c.MaxLineBytes < 128:
		return fmt.Errorf("sinks: line bound %d bytes: below Spark's longest lines", c.MaxLineBytes)
	}
	return nil
}

// Receiver listens for Spark's sinks.
type Receiver struct {
	cfg      Config
	graphite net.Listener
	statsd   net.PacketConn
	latest   *latest
	stats    *stats
}

// New validates cfg and binds its addresses, so that a port in use is an
// error at startup.
func New(cfg Config) (*Receiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.defaults()
	r := &Receiver{cfg: cfg, latest: newLatest(cfg.MaxApps, cfg.MaxSeriesPerApp, cfg.StaleAfter), stats: newStats()}
	var err error
	if cfg.GraphiteAddr != "" {
		if r.graphite, err = net.Listen("tcp", cfg.GraphiteAddr); err != nil {
			return nil, fmt.Errorf("graphite listen %s: %w", cfg.GraphiteAddr, err)
		}
	}
	if cfg.StatsdAddr != "" {
		if r.statsd, err = net.ListenPacket("udp", cfg.StatsdAddr); err != nil {
			r.Close()
			return nil, fmt.Errorf("statsd listen %s: %w", cfg.StatsdAddr, err)
		}
	}
	return r, nil
}

// GraphiteAddr is the bound TCP address, nil when not listening.
func (r *Receiver) GraphiteAddr() net.Addr {
	if r.graphite == nil {
		return nil
	}
	return r.graphite.Addr()
}

// StatsdAddr is the bound UDP address, nil when not listening.
func (r *Receiver) StatsdAddr() net.Addr {
	if r.statsd == nil {
		return nil
	}
	return r.statsd.LocalAddr()
}

// Collector renders the series received, and the receivers' counters,
// for /metrics.
func (r *Receiver) Collector() prometheus.Collector {
	return newCollector(r.latest, r.stats, r.cfg.Now)
}

// Close releases the addresses; Run does it when its context ends.
func (r *Receiver) Close() {
	if r.graphite != nil {
		r.graphite.Close()
	}
	if r.statsd != nil {
		r.statsd.Close()
	}
}

// Run receives until ctx ends, then flushes what it holds and returns.
func (r *Receiver) Run(ctx context.Context) {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, r.Close)
	defer stop()
	if r.graphite != nil {
		wg.Go(func() { r.acceptGraphite(ctx, &wg) })
	}
	if r.statsd != nil {
		wg.Go(func() { r.serveStatsd(ctx) })
	}
	wg.Wait()
}

// flush sends a batch to the sink and keeps its series for /metrics; the
// series past the bounds are dropped from both. Flushes outlive ctx: a
// batch read before shutdown is still stored.
func (r *Receiver) flush(ctx context.Context, b *batch) {
	if b.len() == 0 {
		return
	}
	if n := r.latest.record(b, r.cfg.Now()); n > 0 {
		r.stats.add(b.sink, outcomeRefused, n)
	}
	if r.cfg.Sink != nil && b.len() > 0 {
		if err := r.cfg.Sink(context.WithoutCancel(ctx), b.metricsData()); err != nil {
			r.stats.sinkErrors.Add(1)
		}
	}
	b.reset()
}

// take parses nothing: it maps a parsed point into b, flushing b first
// when full or, for Graphite, when the point starts another report.
func (r *Receiver) take(ctx context.Context, b *batch, p Point) {
	m, ok := mapPoint(p)
	if !ok {
		r.stats.count(b.sink, outcomeUnmapped)
		return
	}
	r.stats.count(b.sink, outcomeMapped)
	if b.sink == sinkGraphite && b.len() > 0 && p.TimeMs != b.timeMs {
		r.flush(ctx, b)
	}
	if !b.add(p, m) {
		r.flush(ctx, b)
		b.add(p, m)
	}
}

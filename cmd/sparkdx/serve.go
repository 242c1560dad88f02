package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/sparkdx/sparkdx/internal/access"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/exports"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/shard"
	"github.com/sparkdx/sparkdx/internal/sinks"
)

// runServe runs the fleet server until ctx ends: flags, their checks, the
// parts opened in order, then serving.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := serveFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	c.parsed(fs)
	if err := c.Validate(); err != nil {
		return err
	}
	p, err := openServe(ctx, c, stderr)
	if p != nil {
		defer p.close()
	}
	if err != nil {
		return err
	}
	return p.serve(ctx, c, stdout)
}

// serveParts are what serve opened; close releases what outlives serving.
type serveParts struct {
	data   string
	shard  shard.Spec
	st     *store.Store
	exp    *exports.Exports
	in     *ingest.Ingester
	rcv    *sinks.Receiver
	ln     net.Listener
	srv    *http.Server
	closes []func()
}

func (p *serveParts) close() {
	for i := len(p.closes) - 1; i >= 0; i-- {
		p.closes[i]()
	}
}

// openServe opens the store, the exports, ingest, the listener and the
// sinks, in that order; the parts opened so far come back with an error.
func openServe(ctx context.Context, c *serveConfig, stderr io.Writer) (*serveParts, error) {
	fleetPeers, err := c.fleetPeers()
	if err != nil {
		return nil, err
	}
	hosts, err := c.hosts()
	if err != nil {
		return nil, err
	}
	rules, err := redact.New(c.redaction)
	if err != nil {
		return nil, usageErr("--redaction-regex: %v", err)
	}
	prices, err := c.prices.prices()
	if err != nil {
		return nil, err
	}
	var token string
	if c.tokenFile != "" {
		if token, err = access.ReadToken(c.tokenFile); err != nil {
			return nil, inputErr(err)
		}
	}
	p := &serveParts{data: c.data, shard: fleetPeers.Shard}
	if p.data == "" {
		if p.data, err = defaultDataDir(); err != nil {
			return nil, usageErr("--data: %v", err)
		}
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := p.setMemoryLimit(c.memLimit, logger); err != nil {
		return p, err
	}
	if p.st, err = store.Open(p.data); err != nil {
		return p, inputErr(err)
	}
	p.closes = append(p.closes, func() { p.st.Close() })
	if p.exp, err = openServeExports(ctx, p.st, logger, c.otlp, c.otlpEnvErr, c.delta, c.deltaFlush, c.deltaMaintain); err != nil {
		return p, err
	}
	ic := c.ingestConfig()
	ic.Store, ic.Redaction, ic.Logger, ic.Listener, ic.Shard = p.st, rules, logger, p.exp, fleetPeers.Shard
	ic.Open = eventlog.OpenOptions{S3: c.s3.config()}
	ic.Views, ic.Analyze = server.Views, server.AnalyzeFunc(p.st)
	if p.in, err = ingest.New(ic); err != nil {
		return p, usageErr("%v", err)
	}
	return p, p.openHTTP(c, server.Config{AuthToken: token, Hosts: hosts, Logger: logger, Peers: fleetPeers, Prices: prices, Profiles: c.profiles})
}

// openHTTP binds --listen and the sinks and makes the server of sc (its
// access and peers settings) over what is open.
func (p *serveParts) openHTTP(c *serveConfig, sc server.Config) error {
	var err error
	if p.ln, err = net.Listen("tcp", c.listen); err != nil {
		return usageErr("--listen: %v", err)
	}
	var app *server.Server // the sinks' batches go where agents' pushes go
	if p.rcv, err = openSinks(c.graphiteListen, c.statsdListen, sc.Logger, func(ctx context.Context, md *metricpb.MetricsData) error {
		return app.IngestMetrics(ctx, md)
	}); err != nil {
		p.ln.Close()
		return err
	}
	if p.rcv != nil {
		sc.Collectors = append(sc.Collectors, p.rcv.Collector())
	}
	sc.Ingest, sc.Store, sc.Metrics, sc.Exports = p.in, p.st, p.exp, p.exp
	sc.MetricsWindow, sc.MetricsMaxFinished, sc.RawLogs = c.metricsWindow, c.metricsMax, c.rawLogs
	sc.Regression, sc.ExplainRuns = c.regression, c.explainRuns
	limits := server.DefaultHTTPLimits()
	app = server.New(sc)
	p.srv = server.HTTPServer(app, limits)
	p.ln = server.LimitListener(p.ln, limits.MaxConns)
	return nil
}

// setMemoryLimit applies --memory-limit, restored by close: serve runs in
// tests' processes too.
func (p *serveParts) setMemoryLimit(flag string, logger *slog.Logger) error {
	limit, from, err := memoryLimit(flag, os.Getenv("GOMEMLIMIT"), os.ReadFile)
	if err != nil {
		return usageErr("%v", err)
	}
	if limit > 0 {
		prev := debug.SetMemoryLimit(limit)
		p.closes = append(p.closes, func() { debug.SetMemoryLimit(prev) })
	}
	if limit > 0 || from == "GOMEMLIMIT" {
		logger.Info("memory limit", "bytes", debug.SetMemoryLimit(-1), "from", from)
	}
	return nil
}

// serve answers HTTP until ctx ends, with ingest, the sinks and the
// exports running beside it, and stops them in order.
func (p *serveParts) serve(ctx context.Context, c *serveConfig, stdout io.Writer) error {
	if p.shard.Enabled() {
		fmt.Fprintf(stdout, "sparkdx serve: shard %s of the event logs\n", p.shard)
	}
	fmt.Fprintf(stdout, "sparkdx serve: listening on http://%s (data %s)\n", p.ln.Addr(), p.data)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.in.Run(ctx) }()
	sinksDone := make(chan struct{})
	if p.rcv != nil {
		reportSinks(stdout, p.rcv)
		go func() { p.rcv.Run(ctx); close(sinksDone) }()
	} else {
		close(sinksDone)
	}
	// Exports outlive ingest: its last Finished calls still reach them.
	expCtx, expCancel := context.WithCancel(context.WithoutCancel(ctx))
	expDone := make(chan struct{})
	go func() { p.exp.Run(expCtx, p.in, c.healthEvery); close(expDone) }()
	go func() {
		<-ctx.Done()
		shut, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		p.srv.Shutdown(shut)
	}()
	err := p.srv.Serve(p.ln)
	cancel()
	<-done
	<-sinksDone
	expCancel()
	<-expDone
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// flagGiven says whether a flag was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func defaultDataDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "sparkdx"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", "sparkdx"), nil
}

// openServeExports connects the OTLP exporter and opens the Delta tables
// serve was asked for; with neither, the exports do nothing.
func openServeExports(ctx context.Context, st *store.Store, logger *slog.Logger, cfg otlp.Config, envErr error,
	dflags *deltaFlags, flush, maintain time.Duration) (*exports.Exports, error) {
	var xc exports.Config
	if cfg.Endpoint != "" {
		if envErr != nil {
			return nil, usageErr("%v", envErr)
		}
		if cfg.ServiceName == "" {
			cfg.ServiceName = "sparkdx-serve"
		}
		var err error
		if xc.OTLP, err = otlp.New(ctx, cfg); err != nil {
			return nil, usageErr("--otlp-endpoint: %v", err)
		}
	}
	tables, red, err := dflags.open(ctx)
	if err != nil {
		if xc.OTLP != nil {
			_ = xc.OTLP.Shutdown(ctx)
		}
		return nil, err
	}
	xc.Tables, xc.Redactor, xc.SamplesFlush, xc.MaintainEvery = tables, red, flush, maintain
	// Turns at half the interval: a job's row waits one turn more when a
	// sibling may have ended in its millisecond (delta.LiveMark).
	xc.LiveEvery = flush / 2
	return exports.New(st, logger, xc), nil
}

// openSinks binds the receivers of Spark's own metric sinks, when asked
// for; nil when neither address is given.
func openSinks(graphite, statsd string, logger *slog.Logger, sink func(context.Context, *metricpb.MetricsData) error) (*sinks.Receiver, error) {
	if graphite == "" && statsd == "" {
		return nil, nil
	}
	rcv, err := sinks.New(sinks.Config{GraphiteAddr: graphite, StatsdAddr: statsd, Sink: sink, Logger: logger})
	if err != nil {
		return nil, usageErr("--graphite-listen/--statsd-listen: %v", err)
	}
	return rcv, nil
}

// reportSinks prints where the sinks listen, as the addresses bound (a
// port 0 chosen).
func reportSinks(stdout io.Writer, rcv *sinks.Receiver) {
	if a := rcv.GraphiteAddr(); a != nil {
		fmt.Fprintf(stdout, "sparkdx serve: Spark GraphiteSink on tcp %s\n", a)
	}
	if a := rcv.StatsdAddr(); a != nil {
		fmt.Fprintf(stdout, "sparkdx serve: Spark StatsdSink on udp %s\n", a)
	}
}

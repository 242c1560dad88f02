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
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/sparkdx/sparkdx/internal/access"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/export/prom"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/s3"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/exports"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/peers"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/shard"
	"github.com/sparkdx/sparkdx/internal/sinks"
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// runServe runs the fleet server until ctx ends.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var roots multiFlag
	fs.Var(&roots, "event-logs", "event-log directory or s3://BUCKET/PREFIX (repeatable)")
	listen := fs.String("listen", "127.0.0.1:18080", "address to serve HTTP on")
	data := fs.String("data", "", "directory of the embedded store (default: $XDG_STATE_HOME or ~/.local/state/sparkdx)")
	tokenFile := fs.String("auth-token-file", "", "file holding the bearer token every request but /healthz must carry")
	allowedHosts := fs.String("allowed-hosts", "", "host names requests may name besides localhost, the --listen host, this machine's name, the --peers hosts and IP addresses (`NAME,.domain,…`; *: any): a DNS rebinding guard")
	poll := fs.Duration("poll", 2*time.Second, "rescan interval (inotify wakes local directories sooner)")
	workers := fs.Int("workers", 0, "ingest workers (default: half the CPUs, at least 1; the rest serve requests)")
	queue := fs.Int("queue", 1024, "ingest queue capacity")
	retention := fs.Duration("retention", 7*24*time.Hour, "how long agent samples are kept")
	appMaxAge := fs.Duration("app-max-age", 0, "drop applications whose event log was last modified longer ago than this from the store and the fleet (0: keep; the logs themselves are never deleted)")
	maxFinished := fs.Int("max-finished-apps", 0, "keep at most this many finished applications, those whose logs changed last (0: no bound; running ones always stay)")
	rawLogs := fs.Bool("serve-raw-logs", false, "serve /api/v1/.../logs (zips of the raw, unredacted event logs)")
	metricsWindow := fs.Duration("metrics-window", time.Hour, "how long finished applications stay in /metrics")
	metricsMax := fs.Int("metrics-max-finished", prom.DefaultMaxFinishedApps, "at most this many finished applications in /metrics (those that ended last)")
	cacheSize := fs.Int("cache", 32, "finished applications' models kept in memory")
	memLimit := fs.String("memory-limit", "auto", "soft limit of serve's Go heap, which collects more often near it (`SIZE`: 2GiB, 1536MiB; off; auto: $GOMEMLIMIT if set, else 90% of the container's cgroup memory limit if any)")
	resumeEvery := fs.Duration("resume-every", 30*time.Second, "how often a running log's replay state is stored, so a restart continues it instead of reading it again (a kill -9 re-reads at most this much)")
	shardFlag := fs.String("shard", "", "take only shard `I/N` of the event logs (FNV-1a of each log's application id, modulo N; I may be a StatefulSet pod name ending in its ordinal) so that N instances share one directory; of the agents' OTLP metrics it keeps its applications' points (send every instance all of them)")
	peersFlag := fs.String("peers", "", "with --shard: every instance's base URL in shard order, this one's included (`URL,URL,...`); the fleet lists merge theirs and an app another instance owns is redirected there")
	peerTimeout := fs.Duration("peer-timeout", 2*time.Second, "how long a fleet list waits for a peer before naming it as down")
	peerProxy := fs.Bool("peer-proxy", false, "answer a request for another instance's app by forwarding it there instead of redirecting (307): for clients that cannot reach the --peers URLs, as behind a Kubernetes Service")
	s3f := addS3Flags(fs)
	pflags := addPriceFlags(fs)
	redaction := fs.String("redaction-regex", redact.SparkDefault, "Spark properties to redact (key or value; an app's own spark.redaction.regex adds to it); cloud keys and passwords in URLs and text are always redacted")
	// OTLP settings default to the OpenTelemetry variables the Helm chart sets.
	otlpCfg, _, envErr := otlp.FromEnv(os.Getenv)
	if otlpCfg.Protocol == "" {
		otlpCfg.Protocol = otlp.ProtocolGRPC
	}
	fs.StringVar(&otlpCfg.Endpoint, "otlp-endpoint", otlpCfg.Endpoint, "send each app's trace and metrics, and serve's health, to this OTLP collector (default $OTEL_EXPORTER_OTLP_ENDPOINT)")
	fs.StringVar(&otlpCfg.Protocol, "otlp-protocol", otlpCfg.Protocol, "OTLP protocol: grpc|http/protobuf (default $OTEL_EXPORTER_OTLP_PROTOCOL or grpc)")
	fs.Float64Var(&otlpCfg.TaskSamplingRatio, "otlp-task-sampling", otlpCfg.TaskSamplingRatio, "share of task attempts sent as spans, failed ones always (default $SPARKDX_OTLP_TASK_SAMPLING_RATIO or 0)")
	fs.DurationVar(&otlpCfg.Timeout, "otlp-timeout", 10*time.Second, "bound on one OTLP export, retries included; after a failure exports pause for 30s")
	healthEvery := fs.Duration("otlp-health-interval", 30*time.Second, "how often serve's own ingest health goes to the OTLP collector")
	dflags := &deltaFlags{s3: s3f}
	fs.StringVar(&dflags.dest, "delta", "", "append finished apps (apps, jobs, stages, executors, findings), running apps' ended jobs and stages (within --delta-flush-interval) and agent samples to Delta tables under `DIR|s3://BUCKET/PREFIX`")
	deltaFlush := fs.Duration("delta-flush-interval", time.Minute, "how often buffered agent samples are committed to the Delta samples table, and the bound on how long a running app's ended job or stage waits for its row")
	deltaMaintain := fs.Duration("delta-maintain-every", 24*time.Hour,
		"how often the Delta tables are compacted, vacuumed (files unreferenced for 7 days) and their log cleaned (entries older than 30 days before a checkpoint); 0: never (the default on --shard I/N with I > 0: shard 0 maintains the shared tables)")
	graphiteListen := fs.String("graphite-listen", "", "receive Spark's GraphiteSink (protocol tcp) on this TCP `ADDR`: JVM pools, GC, buffers and executor memory of apps with no agent (docs/spark-sinks.md); off by default")
	statsdListen := fs.String("statsd-listen", "", "receive Spark's StatsdSink on this UDP `ADDR` (docs/spark-sinks.md); off by default")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	dflags.redaction = *redaction
	if len(roots) == 0 || fs.NArg() != 0 {
		return usageErr("usage: sparkdx serve --event-logs DIR|s3://BUCKET/PREFIX [--listen ADDR] [--data DIR] [--otlp-endpoint URL] [--delta DIR|s3://BUCKET/PREFIX]")
	}
	for _, root := range roots {
		// A mistyped local directory is an error now, not a warning forever.
		if s3.IsURL(root) {
			continue
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			if err == nil {
				err = fmt.Errorf("not a directory")
			}
			return usageErr("--event-logs %s: %v", root, err)
		}
	}
	rules, err := redact.New(*redaction)
	if err != nil {
		return usageErr("--redaction-regex: %v", err)
	}
	prices, err := pflags.prices()
	if err != nil {
		return err
	}
	sp, err := shard.Parse(*shardFlag)
	if err != nil {
		return usageErr("--shard: %v", err)
	}
	fleetPeers := peers.Config{Shard: sp, Timeout: *peerTimeout, Proxy: *peerProxy}
	if *peersFlag != "" {
		if !sp.Enabled() {
			return usageErr("--peers needs --shard I/N with N > 1")
		}
		for _, u := range strings.Split(*peersFlag, ",") {
			fleetPeers.URLs = append(fleetPeers.URLs, strings.TrimSpace(u))
		}
	}
	if err := fleetPeers.Validate(); err != nil {
		return usageErr("--peers: %v", err)
	}
	if sp.Index != 0 && !flagGiven(fs, "delta-maintain-every") {
		// The instances share the Delta tables: one of them (shard 0)
		// compacts and vacuums them, so that two never remove the same
		// files at once.
		*deltaMaintain = 0
	}
	if *metricsMax < 1 {
		return usageErr("--metrics-max-finished %d: must be at least 1", *metricsMax)
	}
	var token string
	if *tokenFile != "" {
		if token, err = access.ReadToken(*tokenFile); err != nil {
			return inputErr(err)
		}
	}
	allowed := splitList(*allowedHosts)
	for _, u := range fleetPeers.URLs { // peers ask each other by these names
		if pu, err := url.Parse(u); err == nil {
			allowed = append(allowed, pu.Host)
		}
	}
	hosts, err := access.NewHosts(*listen, allowed)
	if err != nil {
		return usageErr("--allowed-hosts: %v", err)
	}
	if *data == "" {
		dir, err := defaultDataDir()
		if err != nil {
			return usageErr("--data: %v", err)
		}
		*data = dir
	}
	limit, limitFrom, err := memoryLimit(*memLimit, os.Getenv("GOMEMLIMIT"), os.ReadFile)
	if err != nil {
		return usageErr("%v", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if limit > 0 {
		prev := debug.SetMemoryLimit(limit)
		defer debug.SetMemoryLimit(prev) // serve runs in tests' processes too
	}
	if limit > 0 || limitFrom == "GOMEMLIMIT" {
		logger.Info("memory limit", "bytes", debug.SetMemoryLimit(-1), "from", limitFrom)
	}
	st, err := store.Open(*data)
	if err != nil {
		return inputErr(err)
	}
	defer st.Close()
	exp, err := openServeExports(ctx, st, logger, otlpCfg, envErr, dflags, *deltaFlush, *deltaMaintain)
	if err != nil {
		return err
	}
	in, err := ingest.New(ingest.Config{Roots: roots, Store: st, Poll: *poll, Workers: *workers, Queue: *queue,
		CacheSize: *cacheSize, Redaction: rules, Logger: logger, Watch: true, Retention: *retention, SnapshotEvery: *resumeEvery,
		Apps: ingest.Retention{MaxAge: *appMaxAge, MaxFinished: *maxFinished},
		Open: eventlog.OpenOptions{S3: s3f.config()}, Shard: sp,
		Views:    server.Views,
		Analyze:  server.AnalyzeFunc(st),
		Listener: exp})
	if err != nil {
		return usageErr("%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageErr("--listen: %v", err)
	}
	var app *server.Server // the sinks' batches go where agents' pushes go
	rcv, err := openSinks(*graphiteListen, *statsdListen, logger, func(ctx context.Context, md *metricpb.MetricsData) error {
		return app.IngestMetrics(ctx, md)
	})
	if err != nil {
		ln.Close()
		return err
	}
	var collectors []prometheus.Collector
	if rcv != nil {
		collectors = append(collectors, rcv.Collector())
	}
	limits := server.DefaultHTTPLimits()
	app = server.New(server.Config{Ingest: in, Store: st, AuthToken: token, Hosts: hosts, Logger: logger,
		MetricsWindow: *metricsWindow, MetricsMaxFinished: *metricsMax, RawLogs: *rawLogs, Metrics: exp, Exports: exp, Peers: fleetPeers,
		Collectors: collectors, Prices: prices})
	srv := server.HTTPServer(app, limits)
	ln = server.LimitListener(ln, limits.MaxConns)
	if sp.Enabled() {
		fmt.Fprintf(stdout, "sparkdx serve: shard %s of the event logs\n", sp)
	}
	fmt.Fprintf(stdout, "sparkdx serve: listening on http://%s (data %s)\n", ln.Addr(), *data)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	sinksDone := make(chan struct{})
	if rcv != nil {
		reportSinks(stdout, rcv)
		go func() { rcv.Run(ctx); close(sinksDone) }()
	} else {
		close(sinksDone)
	}
	// Exports outlive ingest: its last Finished calls still reach them.
	expCtx, expCancel := context.WithCancel(context.WithoutCancel(ctx))
	expDone := make(chan struct{})
	go func() { exp.Run(expCtx, in, *healthEvery); close(expDone) }()
	go func() {
		<-ctx.Done()
		shut, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(shut)
	}()
	err = srv.Serve(ln)
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

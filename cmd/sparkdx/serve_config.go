package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/access"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/export/prom"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/s3"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/peers"
	"github.com/sparkdx/sparkdx/internal/shard"
)

const serveUsage = "usage: sparkdx serve --event-logs DIR|s3://BUCKET/PREFIX [--listen ADDR] [--data DIR] [--otlp-endpoint URL] [--delta DIR|s3://BUCKET/PREFIX]"

// serveConfig is serve's command line: the flags' values as typed, checked
// by Validate before anything is opened.
type serveConfig struct {
	roots, operands              []string
	listen, data, tokenFile      string
	allowedHosts, redaction      string
	memLimit, shard, peers       string
	profiles                     string
	graphiteListen, statsdListen string
	workers, queue, cacheSize    int
	maxFinished, metricsMax      int
	rawLogs, peerProxy           bool
	poll, retention, appMaxAge   time.Duration
	metricsWindow, resumeEvery   time.Duration
	peerTimeout, healthEvery     time.Duration
	deltaFlush, deltaMaintain    time.Duration
	otlp                         otlp.Config
	otlpEnvErr                   error // the OpenTelemetry variables' error, fatal only with an endpoint
	s3                           *s3Flags
	delta                        *deltaFlags
	prices                       priceFlags
	regression                   regress.Config
	regressionMinAdded           time.Duration
	explainRuns                  int
}

// serveFlags declares serve's flags on fs, into the config it returns.
func serveFlags(fs *flag.FlagSet) *serveConfig {
	c := &serveConfig{}
	fs.Func("event-logs", "event-log directory or s3://BUCKET/PREFIX (repeatable)", func(v string) error { c.roots = append(c.roots, v); return nil })
	fs.StringVar(&c.listen, "listen", "127.0.0.1:18080", "address to serve HTTP on")
	fs.StringVar(&c.data, "data", "", "directory of the embedded store (default: $XDG_STATE_HOME or ~/.local/state/sparkdx)")
	fs.StringVar(&c.tokenFile, "auth-token-file", "", "file holding the bearer token every request but /healthz must carry")
	fs.StringVar(&c.allowedHosts, "allowed-hosts", "", "host names requests may name besides localhost, the --listen host, this machine's name, the --peers hosts and IP addresses (`NAME,.domain,…`; *: any): a DNS rebinding guard")
	fs.StringVar(&c.profiles, "profiles", "", "directory of CPU profiles (sparkdx agent --profile-dir, or APP_ID*.pb.gz/.collapsed files): an application's add flame graphs to its app, stage and executors pages")
	fs.DurationVar(&c.poll, "poll", 2*time.Second, "rescan interval (inotify wakes local directories sooner)")
	fs.IntVar(&c.workers, "workers", 0, "ingest workers (default: half the CPUs, at least 1; the rest serve requests)")
	fs.IntVar(&c.queue, "queue", 1024, "ingest queue capacity")
	fs.DurationVar(&c.retention, "retention", 7*24*time.Hour, "how long agent samples are kept")
	fs.DurationVar(&c.appMaxAge, "app-max-age", 0, "drop applications whose event log was last modified longer ago than this from the store and the fleet (0: keep; the logs themselves are never deleted)")
	fs.IntVar(&c.maxFinished, "max-finished-apps", 0, "keep at most this many finished applications, those whose logs changed last (0: no bound; running ones always stay)")
	fs.BoolVar(&c.rawLogs, "serve-raw-logs", false, "serve /api/v1/.../logs (zips of the raw, unredacted event logs)")
	fs.DurationVar(&c.metricsWindow, "metrics-window", time.Hour, "how long finished applications stay in /metrics")
	fs.IntVar(&c.metricsMax, "metrics-max-finished", prom.DefaultMaxFinishedApps, "at most this many finished applications in /metrics (those that ended last)")
	fs.IntVar(&c.cacheSize, "cache", 32, "finished applications' models kept in memory")
	fs.StringVar(&c.memLimit, "memory-limit", "auto", "soft limit of serve's Go heap, which collects more often near it (`SIZE`: 2GiB, 1536MiB; off; auto: $GOMEMLIMIT if set, else 90% of the container's cgroup memory limit if any)")
	fs.DurationVar(&c.resumeEvery, "resume-every", 30*time.Second, "how often a running log's replay state is stored, so a restart continues it instead of reading it again (a kill -9 re-reads at most this much)")
	fs.StringVar(&c.shard, "shard", "", "take only shard `I/N` of the event logs (FNV-1a of each log's application id, modulo N; I may be a StatefulSet pod name ending in its ordinal) so that N instances share one directory; of the agents' OTLP metrics it keeps its applications' points (send every instance all of them)")
	fs.StringVar(&c.peers, "peers", "", "with --shard: every instance's base URL in shard order, this one's included (`URL,URL,...`); the fleet lists merge theirs and an app another instance owns is redirected there")
	fs.DurationVar(&c.peerTimeout, "peer-timeout", 2*time.Second, "how long a fleet list waits for a peer before naming it as down")
	fs.BoolVar(&c.peerProxy, "peer-proxy", false, "answer a request for another instance's app by forwarding it there instead of redirecting (307): for clients that cannot reach the --peers URLs, as behind a Kubernetes Service")
	c.s3 = addS3Flags(fs)
	c.prices = addPriceFlags(fs)
	fs.StringVar(&c.redaction, "redaction-regex", redact.SparkDefault, "Spark properties to redact (key or value; an app's own spark.redaction.regex adds to it); cloud keys and passwords in URLs and text are always redacted")
	serveExportFlags(fs, c)
	serveRegressionFlags(fs, c)
	return c
}

// serveRegressionFlags declares the flags of the recurring jobs'
// regression verdict (docs/regressions.md), regress.DefaultConfig's
// values by default.
func serveRegressionFlags(fs *flag.FlagSet, c *serveConfig) {
	d := regress.DefaultConfig()
	fs.IntVar(&c.regression.Runs, "regression-runs", d.Runs, "a recurring job's baseline is its last `N` successful runs")
	fs.IntVar(&c.regression.MinRuns, "regression-min-runs", d.MinRuns, "fewer successful runs than `N`: no baseline, no verdict")
	fs.Float64Var(&c.regression.Ratio, "regression-ratio", d.Ratio, "a run regressed when its wall time is at least `X` times the baseline's median")
	fs.Float64Var(&c.regression.Sigmas, "regression-deviations", d.Sigmas, "and at least `N` robust deviations (1.4826 × MAD) above the median")
	fs.DurationVar(&c.regressionMinAdded, "regression-min-added", time.Duration(d.MinDeltaMs)*time.Millisecond, "and it added at least this much wall time")
	fs.IntVar(&c.explainRuns, "regression-explain", server.DefaultExplainRuns, "one answer about a job explains at most `N` regressed runs, the newest first (each replays two logs once)")
}

// serveExportFlags declares the flags of what serve sends on: OTLP, Delta
// tables, and the receivers of Spark's own metric sinks.
func serveExportFlags(fs *flag.FlagSet, c *serveConfig) {
	// OTLP settings default to the OpenTelemetry variables the Helm chart sets.
	c.otlp, _, c.otlpEnvErr = otlp.FromEnv(os.Getenv)
	if c.otlp.Protocol == "" {
		c.otlp.Protocol = otlp.ProtocolGRPC
	}
	fs.StringVar(&c.otlp.Endpoint, "otlp-endpoint", c.otlp.Endpoint, "send each app's trace and metrics, and serve's health, to this OTLP collector (default $OTEL_EXPORTER_OTLP_ENDPOINT)")
	fs.StringVar(&c.otlp.Protocol, "otlp-protocol", c.otlp.Protocol, "OTLP protocol: grpc|http/protobuf (default $OTEL_EXPORTER_OTLP_PROTOCOL or grpc)")
	fs.Float64Var(&c.otlp.TaskSamplingRatio, "otlp-task-sampling", c.otlp.TaskSamplingRatio, "share of task attempts sent as spans, failed ones always (default $SPARKDX_OTLP_TASK_SAMPLING_RATIO or 0)")
	fs.DurationVar(&c.otlp.Timeout, "otlp-timeout", 10*time.Second, "bound on one OTLP export, retries included; after a failure exports pause for 30s")
	fs.DurationVar(&c.healthEvery, "otlp-health-interval", 30*time.Second, "how often serve's own ingest health goes to the OTLP collector")
	c.delta = &deltaFlags{s3: c.s3}
	fs.StringVar(&c.delta.dest, "delta", "", "append finished apps (apps, jobs, stages, executors, findings), running apps' ended jobs and stages (within --delta-flush-interval) and agent samples to Delta tables under `DIR|s3://BUCKET/PREFIX`")
	fs.DurationVar(&c.deltaFlush, "delta-flush-interval", time.Minute, "how often buffered agent samples are committed to the Delta samples table, and the bound on how long a running app's ended job or stage waits for its row")
	fs.DurationVar(&c.deltaMaintain, "delta-maintain-every", 24*time.Hour,
		"how often the Delta tables are compacted, vacuumed (files unreferenced for 7 days) and their log cleaned (entries older than 30 days before a checkpoint); 0: never (the default on --shard I/N with I > 0: shard 0 maintains the shared tables)")
	fs.StringVar(&c.graphiteListen, "graphite-listen", "", "receive Spark's GraphiteSink (protocol tcp) on this TCP `ADDR`: JVM pools, GC, buffers and executor memory of apps with no agent (docs/spark-sinks.md); off by default")
	fs.StringVar(&c.statsdListen, "statsd-listen", "", "receive Spark's StatsdSink on this UDP `ADDR` (docs/spark-sinks.md); off by default")
}

// parsed completes the config once fs has parsed the command line.
func (c *serveConfig) parsed(fs *flag.FlagSet) {
	c.operands = fs.Args()
	c.regression.MinDeltaMs = c.regressionMinAdded.Milliseconds()
	c.delta.redaction = c.redaction
	if sp, err := shard.Parse(c.shard); err == nil && sp.Index != 0 && !flagGiven(fs, "delta-maintain-every") {
		// The instances share the Delta tables: one of them (shard 0)
		// compacts and vacuums them, so that two never remove the same
		// files at once.
		c.deltaMaintain = 0
	}
}

// Validate checks the flags that need nothing opened, in the order their
// errors are reported.
func (c *serveConfig) Validate() error {
	if len(c.roots) == 0 || len(c.operands) != 0 {
		return usageErr("%s", serveUsage)
	}
	if c.profiles != "" {
		if fi, err := os.Stat(c.profiles); err != nil || !fi.IsDir() {
			return usageErr("--profiles %s: not a directory", c.profiles)
		}
	}
	for _, root := range c.roots {
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
	if _, err := redact.New(c.redaction); err != nil {
		return usageErr("--redaction-regex: %v", err)
	}
	if _, err := c.prices.prices(); err != nil {
		return err
	}
	if _, err := c.fleetPeers(); err != nil {
		return err
	}
	if err := c.regression.Validate(); err != nil {
		return usageErr("--regression-*: %v", err)
	}
	if c.explainRuns < 1 {
		return usageErr("--regression-explain %d: must be at least 1", c.explainRuns)
	}
	if c.metricsMax < 1 {
		return usageErr("--metrics-max-finished %d: must be at least 1", c.metricsMax)
	}
	_, err := c.hosts()
	return err
}

// fleetPeers is --shard with --peers and their settings.
func (c *serveConfig) fleetPeers() (peers.Config, error) {
	sp, err := shard.Parse(c.shard)
	if err != nil {
		return peers.Config{}, usageErr("--shard: %v", err)
	}
	p := peers.Config{Shard: sp, Timeout: c.peerTimeout, Proxy: c.peerProxy}
	if c.peers != "" {
		if !sp.Enabled() {
			return peers.Config{}, usageErr("--peers needs --shard I/N with N > 1")
		}
		for _, u := range strings.Split(c.peers, ",") {
			p.URLs = append(p.URLs, strings.TrimSpace(u))
		}
	}
	if err := p.Validate(); err != nil {
		return peers.Config{}, usageErr("--peers: %v", err)
	}
	return p, nil
}

// hosts is the DNS rebinding guard: --allowed-hosts and the peers' hosts,
// which peers ask each other by.
func (c *serveConfig) hosts() (*access.Hosts, error) {
	allowed := splitList(c.allowedHosts)
	p, err := c.fleetPeers()
	if err != nil {
		return nil, err
	}
	for _, u := range p.URLs {
		if pu, err := url.Parse(u); err == nil {
			allowed = append(allowed, pu.Host)
		}
	}
	hosts, err := access.NewHosts(c.listen, allowed)
	if err != nil {
		return nil, usageErr("--allowed-hosts: %v", err)
	}
	return hosts, nil
}

// ingestConfig is the ingest settings the flags choose; the caller adds
// what is opened (store, rules, exports).
func (c *serveConfig) ingestConfig() ingest.Config {
	return ingest.Config{Roots: c.roots, Poll: c.poll, Workers: c.workers, Queue: c.queue,
		CacheSize: c.cacheSize, Watch: true, Retention: c.retention, SnapshotEvery: c.resumeEvery,
		Apps: ingest.Retention{MaxAge: c.appMaxAge, MaxFinished: c.maxFinished}}
}

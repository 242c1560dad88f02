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
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/access"
	"github.com/sparkdx/sparkdx/internal/agent"
	"github.com/sparkdx/sparkdx/internal/azure"
	"github.com/sparkdx/sparkdx/internal/gcs"
	"github.com/sparkdx/sparkdx/internal/redact"
)

const agentUsage = "agent [--interval 10s] [--listen 127.0.0.1:9877 [--auth-token-file FILE] [--allowed-hosts NAME,…]] [--once --format json] [--heap-dump-at 0.95 [--heap-dump-at-driver 0.9] [--heap-dump-apps ID,…] --heap-dump-dir DIR [--heap-dump-upload s3://BUCKET/PREFIX|abfss://…|wasbs://…|az://…|gs://BUCKET/PREFIX]] [--otlp-endpoint URL [--otlp-protocol http/protobuf|grpc]] [--spark-rest-interval 30s] [--profile --profile-dir DIR [--profile-every 10m] [--profile-duration 30s] [--profile-max-size 256MiB] [--profile-apps ID,…] [--profile-alloc]] [--proc /proc]"

// agentConfig is agent's command line: the flags' values as typed,
// checked by Validate before anything is opened.
type agentConfig struct {
	operands                             []string
	listen, tokenFile, allowedHosts      string
	redaction, format, heapDir, heapApps string
	heapUpload, otlp, otlpProtocol       string
	procRoot, cgroupRoot, host           string
	profileDir, profileApps, profileMax  string
	once, profile, profileAlloc          bool
	heapAt, heapAtDriver                 float64
	interval, sparkREST                  time.Duration
	profileEvery, profileDuration        time.Duration
	s3                                   *s3Flags
}

// agentFlags declares agent's flags on fs, into the config it returns.
func agentFlags(fs *flag.FlagSet) *agentConfig {
	c := &agentConfig{}
	fs.DurationVar(&c.interval, "interval", 10*time.Second, "sampling interval")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:9877", "address for Prometheus /metrics, /snapshot and /events (empty: none)")
	fs.StringVar(&c.tokenFile, "auth-token-file", "", "file holding the bearer token every request must carry")
	fs.StringVar(&c.allowedHosts, "allowed-hosts", "", "host names requests may name besides localhost, the --listen host, this machine's name and IP addresses (`NAME,.domain,…`; *: any)")
	fs.StringVar(&c.redaction, "redaction-regex", redact.SparkDefault, "properties on command lines to redact (key or value; a JVM's own spark.redaction.regex adds to it); cloud keys and passwords in URLs and arguments are always redacted")
	fs.BoolVar(&c.once, "once", false, "take one snapshot, print it and exit")
	fs.StringVar(&c.format, "format", "json", "output format of --once: json")
	fs.Float64Var(&c.heapAt, "heap-dump-at", 0, "dump a JVM's heap when old-gen/heap used ÷ max stays above this fraction (0: never)")
	fs.Float64Var(&c.heapAtDriver, "heap-dump-at-driver", -1, "the driver's threshold, when it differs from --heap-dump-at (0: never dump the driver)")
	fs.StringVar(&c.heapDir, "heap-dump-dir", "", "absolute directory for heap dumps")
	fs.StringVar(&c.heapApps, "heap-dump-apps", "", "dump only the JVMs of these applications (comma-separated ids or patterns: app-2026*; default all)")
	fs.StringVar(&c.heapUpload, "heap-dump-upload", "", "copy each heap dump once written to s3://bucket/prefix, abfss://container@account.dfs.core.windows.net/path, wasbs://container@account.blob.core.windows.net/path, az://container/path or gs://bucket/prefix, credentials from each cloud's environment (its event names the object)")
	c.s3 = addS3Flags(fs)
	fs.StringVar(&c.otlp, "otlp-endpoint", "", "OTLP endpoint to push metrics to (http://collector:4318 or serve's URL for http/protobuf, http://collector:4317 for grpc)")
	fs.StringVar(&c.otlpProtocol, "otlp-protocol", agent.ProtocolHTTP, "OTLP protocol: http/protobuf or grpc")
	fs.DurationVar(&c.sparkREST, "spark-rest-interval", 30*time.Second, "how often each driver's REST API (its UI port, found from its sockets) is read for its executors' memory (0: never)")
	fs.BoolVar(&c.profile, "profile", false, "record each driver and executor JVM on a schedule (JFR through the attach protocol, as sparkdx profile does) and write its CPU profile into --profile-dir")
	fs.StringVar(&c.profileDir, "profile-dir", "", "directory for scheduled profiles (pprof and collapsed stacks, named by application, executor, pid and time)")
	fs.DurationVar(&c.profileEvery, "profile-every", 10*time.Minute, "how often each JVM is recorded (1m to 24h; JVMs are recorded one at a time)")
	fs.DurationVar(&c.profileDuration, "profile-duration", 30*time.Second, "how long each recording lasts (1s to 5m, shorter than --profile-every)")
	fs.StringVar(&c.profileMax, "profile-max-size", "256MiB", "bytes of profiles --profile-dir keeps; the oldest are removed past it (the last recording always stays)")
	fs.BoolVar(&c.profileAlloc, "profile-alloc", false, "also write each recording's allocation samples (bytes allocated, by stack) as APP-EXEC-pidN-TIME.alloc.pb.gz")
	fs.StringVar(&c.profileApps, "profile-apps", "", "record only the JVMs of these applications (comma-separated ids or patterns: app-2026*; default all)")
	fs.StringVar(&c.procRoot, "proc", "/proc", "proc filesystem to read (a host's /proc mounted in a container)")
	fs.StringVar(&c.cgroupRoot, "cgroup", "/sys/fs/cgroup", "cgroup filesystem to read")
	fs.StringVar(&c.host, "host", os.Getenv("NODE_NAME"), "host label (default: $NODE_NAME, as a DaemonSet sets it from spec.nodeName, else the hostname)")
	return c
}

// Validate checks the flags that need nothing opened, in the order their
// errors are reported; agent.New checks the heap dump settings.
func (c *agentConfig) Validate() error {
	if len(c.operands) > 0 {
		return usageErr("unexpected arguments %q; usage: sparkdx %s", c.operands, agentUsage)
	}
	if c.format != "json" {
		return usageErr("--format %q: only json is supported", c.format)
	}
	if c.interval <= 0 {
		return usageErr("--interval %v: must be positive", c.interval)
	}
	if c.sparkREST < 0 {
		return usageErr("--spark-rest-interval %v: must not be negative (0: never)", c.sparkREST)
	}
	if err := c.validateProfile(); err != nil {
		return err
	}
	if _, err := redact.New(c.redaction); err != nil {
		return usageErr("--redaction-regex: %v", err)
	}
	if _, err := access.NewHosts(c.listen, splitList(c.allowedHosts)); err != nil {
		return usageErr("--allowed-hosts: %v", err)
	}
	return nil
}

// Bounds of the recording schedule: a recording is a safepoint per thread
// dump and JFR's sampling for its length, so the schedule keeps JFR off
// most of the time.
const (
	minProfileEvery, maxProfileEvery       = time.Minute, 24 * time.Hour
	minProfileDuration, maxProfileDuration = time.Second, 5 * time.Minute
)

// validateProfile checks the recording schedule's flags.
func (c *agentConfig) validateProfile() error {
	if !c.profile {
		if c.profileAlloc {
			return usageErr("--profile-alloc needs --profile")
		}
		return nil
	}
	switch {
	case c.profileDir == "":
		return usageErr("--profile needs --profile-dir")
	case c.profileEvery < minProfileEvery || c.profileEvery > maxProfileEvery:
		return usageErr("--profile-every %v: must be between %v and %v", c.profileEvery, minProfileEvery, maxProfileEvery)
	case c.profileDuration < minProfileDuration || c.profileDuration > maxProfileDuration || c.profileDuration >= c.profileEvery:
		return usageErr("--profile-duration %v: must be between %v and %v, and shorter than --profile-every", c.profileDuration,
			minProfileDuration, maxProfileDuration)
	}
	if _, err := parseSize(c.profileMax); err != nil {
		return usageErr("--profile-max-size %q: %v", c.profileMax, err)
	}
	return nil
}

// runAgent samples this node's JVMs until ctx ends, or once with --once.
func runAgent(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := agentFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	c.operands = fs.Args()
	if err := c.Validate(); err != nil {
		return err
	}
	var token string
	if c.tokenFile != "" {
		var err error
		if token, err = access.ReadToken(c.tokenFile); err != nil {
			return inputErr(err)
		}
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	a, err := c.newAgent(logger)
	if err != nil {
		return err
	}
	if c.once {
		return printSnapshot(ctx, a, c.sparkREST > 0, stdout)
	}
	return c.run(ctx, a, token, logger)
}

// newAgent makes the sampler the flags describe.
func (c *agentConfig) newAgent(logger *slog.Logger) (*agent.Agent, error) {
	rules, err := redact.New(c.redaction)
	if err != nil {
		return nil, usageErr("--redaction-regex: %v", err)
	}
	var atRole map[agent.Role]float64
	if c.heapAtDriver >= 0 {
		atRole = map[agent.Role]float64{agent.RoleDriver: c.heapAtDriver}
	}
	var every, profMax int64
	if c.profile {
		every = int64(c.profileEvery)
		if profMax, err = parseSize(c.profileMax); err != nil {
			return nil, usageErr("--profile-max-size %q: %v", c.profileMax, err)
		}
	}
	a, err := agent.New(agent.Config{ProfileEvery: time.Duration(every), ProfileDuration: c.profileDuration, ProfileDir: c.profileDir,
		ProfileApps: splitList(c.profileApps), ProfileMaxBytes: profMax, ProfileAlloc: c.profileAlloc, HeapDumpAtRole: atRole, ProcRoot: c.procRoot, CgroupRoot: c.cgroupRoot, Host: c.host, Interval: c.interval,
		HeapDumpAt: c.heapAt, HeapDumpDir: c.heapDir, HeapDumpApps: splitList(c.heapApps), HeapDumpUpload: c.heapUpload, Stores: agent.Stores{S3: c.s3.config(), Azure: azure.Config{}.WithEnv(nil), GCS: gcs.Config{}.WithEnv(nil)}, SparkREST: c.sparkREST, Redaction: rules, Logger: logger})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return a, nil
}

// printSnapshot prints one snapshot.
func printSnapshot(ctx context.Context, a *agent.Agent, sparkREST bool, stdout io.Writer) error {
	snap, err := a.Sample(ctx)
	if err != nil {
		return inputErr(err)
	}
	if sparkREST {
		// The drivers' REST answers come beside a cycle: one more
		// cycle once they are in.
		a.WaitSparkREST()
		if snap, err = a.Sample(ctx); err != nil {
			return inputErr(err)
		}
	}
	return snap.WriteJSON(stdout)
}

// run samples, serves /metrics and pushes OTLP until ctx ends or the
// sampler or the server fails.
func (c *agentConfig) run(ctx context.Context, a *agent.Agent, token string, logger *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	if c.listen != "" {
		srv, err := c.serveHTTP(a, token, logger, errc)
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	if c.otlp != "" {
		push, err := agent.NewOTLP(ctx, a, c.otlp, c.otlpProtocol, c.interval)
		if err != nil {
			return usageErr("--otlp-endpoint %s: %v", c.otlp, err)
		}
		defer func() {
			sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer scancel()
			if err := push.Shutdown(sctx); err != nil {
				logger.Warn("otlp shutdown", "error", err)
			}
		}()
	}
	go func() { errc <- a.Run(ctx, nil) }()
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("agent: %w", err)
		}
		return nil
	}
}

// serveHTTP serves /metrics, /events and /snapshot on --listen, its end
// sent to errc.
func (c *agentConfig) serveHTTP(a *agent.Agent, token string, logger *slog.Logger, errc chan<- error) (*http.Server, error) {
	hosts, err := access.NewHosts(c.listen, splitList(c.allowedHosts))
	if err != nil {
		return nil, usageErr("--allowed-hosts: %v", err)
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return nil, usageErr("--listen %s: %v", c.listen, err)
	}
	srv := agent.HTTPServer(a.HTTPHandler(agent.HTTPConfig{Token: token, Hosts: hosts}))
	go func() { errc <- srv.Serve(ln) }()
	logger.Info("serving /metrics, /events and /snapshot", "address", "http://"+ln.Addr().String())
	return srv, nil
}

// splitList is a flag's comma-separated values, blanks dropped.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

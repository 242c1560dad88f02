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

const agentUsage = "agent [--interval 10s] [--listen 127.0.0.1:9877 [--auth-token-file FILE] [--allowed-hosts NAME,…]] [--once --format json] [--heap-dump-at 0.95 [--heap-dump-at-driver 0.9] [--heap-dump-apps ID,…] --heap-dump-dir DIR [--heap-dump-upload s3://BUCKET/PREFIX|abfss://…|wasbs://…|az://…|gs://BUCKET/PREFIX]] [--otlp-endpoint URL [--otlp-protocol http/protobuf|grpc]] [--spark-rest-interval 30s] [--proc /proc]"

func runAgent(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	interval := fs.Duration("interval", 10*time.Second, "sampling interval")
	listen := fs.String("listen", "127.0.0.1:9877", "address for Prometheus /metrics, /snapshot and /events (empty: none)")
	tokenFile := fs.String("auth-token-file", "", "file holding the bearer token every request must carry")
	allowedHosts := fs.String("allowed-hosts", "", "host names requests may name besides localhost, the --listen host, this machine's name and IP addresses (`NAME,.domain,…`; *: any)")
	redaction := fs.String("redaction-regex", redact.SparkDefault, "properties on command lines to redact (key or value; a JVM's own spark.redaction.regex adds to it); cloud keys and passwords in URLs and arguments are always redacted")
	once := fs.Bool("once", false, "take one snapshot, print it and exit")
	format := fs.String("format", "json", "output format of --once: json")
	heapAt := fs.Float64("heap-dump-at", 0, "dump a JVM's heap when old-gen/heap used ÷ max stays above this fraction (0: never)")
	heapAtDriver := fs.Float64("heap-dump-at-driver", -1, "the driver's threshold, when it differs from --heap-dump-at (0: never dump the driver)")
	heapDir := fs.String("heap-dump-dir", "", "absolute directory for heap dumps")
	heapApps := fs.String("heap-dump-apps", "", "dump only the JVMs of these applications (comma-separated ids or patterns: app-2026*; default all)")
	heapUpload := fs.String("heap-dump-upload", "", "copy each heap dump once written to s3://bucket/prefix, abfss://container@account.dfs.core.windows.net/path, wasbs://container@account.blob.core.windows.net/path, az://container/path or gs://bucket/prefix, credentials from each cloud's environment (its event names the object)")
	s3f := addS3Flags(fs)
	otlp := fs.String("otlp-endpoint", "", "OTLP endpoint to push metrics to (http://collector:4318 or serve's URL for http/protobuf, http://collector:4317 for grpc)")
	otlpProtocol := fs.String("otlp-protocol", agent.ProtocolHTTP, "OTLP protocol: http/protobuf or grpc")
	sparkREST := fs.Duration("spark-rest-interval", 30*time.Second, "how often each driver's REST API (its UI port, found from its sockets) is read for its executors' memory (0: never)")
	procRoot := fs.String("proc", "/proc", "proc filesystem to read (a host's /proc mounted in a container)")
	cgroupRoot := fs.String("cgroup", "/sys/fs/cgroup", "cgroup filesystem to read")
	host := fs.String("host", os.Getenv("NODE_NAME"), "host label (default: $NODE_NAME, as a DaemonSet sets it from spec.nodeName, else the hostname)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected arguments %q; usage: sparkdx %s", fs.Args(), agentUsage)
	}
	if *format != "json" {
		return usageErr("--format %q: only json is supported", *format)
	}
	if *interval <= 0 {
		return usageErr("--interval %v: must be positive", *interval)
	}
	if *sparkREST < 0 {
		return usageErr("--spark-rest-interval %v: must not be negative (0: never)", *sparkREST)
	}
	rules, err := redact.New(*redaction)
	if err != nil {
		return usageErr("--redaction-regex: %v", err)
	}
	hosts, err := access.NewHosts(*listen, splitList(*allowedHosts))
	if err != nil {
		return usageErr("--allowed-hosts: %v", err)
	}
	var token string
	if *tokenFile != "" {
		if token, err = access.ReadToken(*tokenFile); err != nil {
			return inputErr(err)
		}
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	var atRole map[agent.Role]float64
	if *heapAtDriver >= 0 {
		atRole = map[agent.Role]float64{agent.RoleDriver: *heapAtDriver}
	}
	a, err := agent.New(agent.Config{HeapDumpAtRole: atRole, ProcRoot: *procRoot, CgroupRoot: *cgroupRoot, Host: *host, Interval: *interval,
		HeapDumpAt: *heapAt, HeapDumpDir: *heapDir, HeapDumpApps: splitList(*heapApps), HeapDumpUpload: *heapUpload, Stores: agent.Stores{S3: s3f.config(), Azure: azure.Config{}.WithEnv(nil), GCS: gcs.Config{}.WithEnv(nil)}, SparkREST: *sparkREST, Redaction: rules, Logger: logger})
	if err != nil {
		return usageErr("%v", err)
	}
	if *once {
		snap, err := a.Sample(ctx)
		if err != nil {
			return inputErr(err)
		}
		if *sparkREST > 0 {
			// The drivers' REST answers come beside a cycle: one more
			// cycle once they are in.
			a.WaitSparkREST()
			if snap, err = a.Sample(ctx); err != nil {
				return inputErr(err)
			}
		}
		return snap.WriteJSON(stdout)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	if *listen != "" {
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return usageErr("--listen %s: %v", *listen, err)
		}
		srv := agent.HTTPServer(a.HTTPHandler(agent.HTTPConfig{Token: token, Hosts: hosts}))
		go func() { errc <- srv.Serve(ln) }()
		defer srv.Close()
		logger.Info("serving /metrics, /events and /snapshot", "address", "http://"+ln.Addr().String())
	}
	var push *agent.OTLP
	if *otlp != "" {
		push, err = agent.NewOTLP(ctx, a, *otlp, *otlpProtocol, *interval)
		if err != nil {
			return usageErr("--otlp-endpoint %s: %v", *otlp, err)
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

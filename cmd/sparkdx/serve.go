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
	"regexp"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// runServe runs the fleet server until ctx ends.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var roots multiFlag
	fs.Var(&roots, "event-logs", "event-log directory or s3://BUCKET/PREFIX (repeatable)")
	listen := fs.String("listen", "127.0.0.1:18080", "address to serve HTTP on")
	data := fs.String("data", "", "directory of the embedded store (default: $XDG_STATE_HOME or ~/.local/state/sparkdx)")
	tokenFile := fs.String("auth-token-file", "", "file holding the bearer token every request but /healthz must carry")
	poll := fs.Duration("poll", 2*time.Second, "rescan interval (inotify wakes local directories sooner)")
	workers := fs.Int("workers", 0, "ingest workers (default: half the CPUs, at least 1; the rest serve requests)")
	queue := fs.Int("queue", 1024, "ingest queue capacity")
	retention := fs.Duration("retention", 7*24*time.Hour, "how long agent samples are kept")
	rawLogs := fs.Bool("serve-raw-logs", false, "serve /api/v1/.../logs (zips of the raw, unredacted event logs)")
	metricsWindow := fs.Duration("metrics-window", time.Hour, "how long finished applications stay in /metrics")
	cacheSize := fs.Int("cache", 32, "finished applications' models kept in memory")
	s3Endpoint := fs.String("s3-endpoint", "", "S3 endpoint URL for s3:// logs (default $AWS_ENDPOINT_URL or AWS); credentials from the AWS environment")
	s3Region := fs.String("s3-region", "", "S3 region (default $AWS_REGION)")
	s3PathStyle := fs.Bool("s3-path-style", false, "address buckets in the path (MinIO and most on-premise stores)")
	redaction := fs.String("redaction-regex", ingest.DefaultRedaction, "Spark properties to redact (key or value), unless the app sets spark.redaction.regex")
	if err := fs.Parse(args); err != nil {
		return usageErr("%v", err)
	}
	if len(roots) == 0 || fs.NArg() != 0 {
		return usageErr("usage: sparkdx serve --event-logs DIR|s3://BUCKET/PREFIX [--listen ADDR] [--data DIR]")
	}
	re, err := regexp.Compile(*redaction)
	if err != nil {
		return usageErr("--redaction-regex: %v", err)
	}
	var token string
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return inputErr(fmt.Errorf("--auth-token-file: %w", err))
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return inputErr(fmt.Errorf("--auth-token-file %s: empty", *tokenFile))
		}
	}
	if *data == "" {
		dir, err := defaultDataDir()
		if err != nil {
			return usageErr("--data: %v", err)
		}
		*data = dir
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	st, err := store.Open(*data)
	if err != nil {
		return inputErr(err)
	}
	defer st.Close()
	in, err := ingest.New(ingest.Config{Roots: roots, Store: st, Poll: *poll, Workers: *workers, Queue: *queue,
		CacheSize: *cacheSize, Redaction: re, Logger: logger, Watch: true, Retention: *retention,
		Open:  eventlog.OpenOptions{S3: eventlog.S3Config{Endpoint: *s3Endpoint, Region: *s3Region, PathStyle: *s3PathStyle}.WithEnv(nil)},
		Views: server.Views})
	if err != nil {
		return usageErr("%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageErr("--listen: %v", err)
	}
	srv := &http.Server{Handler: server.New(server.Config{Ingest: in, Store: st, AuthToken: token, Logger: logger,
		MetricsWindow: *metricsWindow, RawLogs: *rawLogs}),
		ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "sparkdx serve: listening on http://%s (data %s)\n", ln.Addr(), *data)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	go func() {
		<-ctx.Done()
		shut, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(shut)
	}()
	err = srv.Serve(ln)
	cancel()
	<-done
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
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

package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// runAPI prints the History Server JSON for one /api/v1/... path over the
// logs in --log-dir.
func runAPI(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logDir := fs.String("log-dir", "", "event-log directory (as spark.history.fs.logDirectory)")
	memLimit := addMemoryLimitFlag(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *logDir == "" || fs.NArg() != 1 {
		return usageErr("usage: sparkdx api --log-dir DIR REST_PATH")
	}
	restore, err := applyOneShotLimit(*memLimit)
	if err != nil {
		return err
	}
	defer restore()
	apps, err := replay.LoadApps(ctx, *logDir, replay.Options{})
	if err != nil {
		if apps == nil {
			return inputErr(err)
		}
		// Like the History Server, serve the logs that could be read.
		fmt.Fprintf(stderr, "sparkdx api: warning: skipped logs: %v\n", err)
	}
	api := historyapi.New(apps)
	api.Files = func(ctx context.Context, path string, fn func(string, io.Reader) error) error {
		return eventlog.WalkFiles(ctx, path, eventlog.OpenOptions{}, fn) // local or s3:// logs
	}
	path := fs.Arg(0)
	if ok, err := api.Logs(ctx, stdout, path); ok {
		if err != nil {
			return inputErr(fmt.Errorf("%d %w", historyapi.StatusOf(err), err))
		}
		return nil
	}
	v, err := api.Get(path)
	if err != nil {
		return inputErr(fmt.Errorf("%d %w", historyapi.StatusOf(err), err))
	}
	_, err = stdout.Write(historyapi.Marshal(v))
	return err
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/report"
)

// runAnalyze replays each LOG and prints the sparkdx.report/v1 JSON.
func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "json", "output format: json")
	strict := fs.Bool("strict", false, "fail on the first malformed line instead of skipping it")
	dflags := addDeltaFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr("%v", err)
	}
	if fs.NArg() == 0 {
		return usageErr("usage: sparkdx analyze [--format json] [--strict] LOG...")
	}
	if *format != "json" {
		return usageErr("--format %s: only json is implemented yet", *format)
	}
	var reports []*report.Report
	var attempts []*model.Attempt
	for _, path := range fs.Args() {
		logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{})
		if err != nil {
			return inputErr(fmt.Errorf("%s: %w", path, err))
		}
		for _, l := range logs {
			a, stats, err := eventlog.ReplayLog(ctx, l, eventlog.ReplayOptions{Strict: *strict})
			if err != nil {
				var le *eventlog.LineError
				if errors.As(err, &le) {
					le.Name = l.Path
				}
				return inputErr(err)
			}
			if a.AppID == "" {
				return inputErr(fmt.Errorf("%s: no SparkListenerApplicationStart: not a Spark event log", l.Path))
			}
			reports = append(reports, report.Build(a, report.Log{Path: l.Path, Codec: logCodec(l),
				Bytes: stats.Bytes, Events: stats.Events, BadLines: stats.BadLines,
				UnknownEvents: stats.Unknown, Truncated: stats.Truncated}))
			attempts = append(attempts, a)
		}
	}
	if err := dflags.writeApps(ctx, attempts, reports); err != nil {
		return err
	}
	return report.WriteJSON(stdout, reports)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/report"
)

// runAnalyze replays each LOG, analyzes and diagnoses it, and prints the
// report: text for people, sparkdx.report/v1 JSON for programs, or one
// self-contained HTML page. With --fail-on it exits 1 when a finding
// reaches that severity.
func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, json or html")
	out := fs.String("o", "", "write the report to `FILE` instead of stdout")
	strict := fs.Bool("strict", false, "fail on the first malformed line instead of skipping it")
	failOn := fs.String("fail-on", "", "exit 1 when a finding is at least this severe: warning|critical")
	if err := fs.Parse(args); err != nil {
		return usageErr("%v", err)
	}
	if fs.NArg() == 0 {
		return usageErr("usage: sparkdx analyze [--format text|json|html] [-o FILE] [--fail-on warning|critical] [--strict] LOG...")
	}
	if *format != "text" && *format != "json" && *format != "html" {
		return usageErr("--format %s: want text, json or html", *format)
	}
	threshold := diagnose.None
	if *failOn != "" {
		s, err := diagnose.ParseSeverity(*failOn)
		if err != nil || s == diagnose.Info {
			return usageErr("--fail-on %q: want warning or critical", *failOn)
		}
		threshold = s
	}
	now := time.Now()
	var inputs []*report.Input
	worst := diagnose.None
	for _, path := range fs.Args() {
		logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{})
		if err != nil {
			return inputErr(fmt.Errorf("%s: %w", path, err))
		}
		if len(logs) == 0 {
			return inputErr(fmt.Errorf("%s: no event log found", path))
		}
		for _, l := range logs {
			a, stats, err := replayLog(ctx, l, eventlog.ReplayOptions{Strict: *strict}, stderr)
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
			res := analyze.Analyze(a)
			findings := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res, Log: diagnose.LogInfo{
				InProgress: l.InProgress, Truncated: stats.Truncated, ModTime: l.ModTime, Now: now}}, diagnose.All)
			worst = max(worst, diagnose.Worst(findings))
			inputs = append(inputs, report.NewInput(a, res, findings, report.Log{Path: l.Path, Codec: logCodec(l),
				Bytes: stats.Bytes, Events: stats.Events, BadLines: stats.BadLines,
				UnknownEvents: stats.Unknown, Truncated: stats.Truncated}))
		}
	}
	if err := writeReport(stdout, *out, *format, inputs); err != nil {
		return err
	}
	if threshold != diagnose.None && worst >= threshold {
		return &exitError{code: 1, err: fmt.Errorf("a finding is %s (--fail-on %s)", worst, threshold)}
	}
	return nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// runAnalyze replays each LOG, analyzes and diagnoses it, and prints the
// report: text for people, sparkdx.report/v1 JSON for programs, or one
// self-contained HTML page. With --fail-on it exits 1 when a finding
// reaches that severity.
func runAnalyze(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text (for people), json (sparkdx.report/v1, for programs) or html")
	out := fs.String("o", "", "write the report to `FILE` instead of stdout")
	strict := fs.Bool("strict", false, "fail on the first malformed line instead of skipping it")
	failOn := fs.String("fail-on", "", "exit 1 when a finding is at least this severe: warning|critical")
	all := fs.Bool("all", false, "show every finding in full (text, html): the info ones are counted in one line otherwise")
	var otlpCfg otlp.Config
	fs.StringVar(&otlpCfg.Endpoint, "otlp-endpoint", "", "also send each app's trace and metrics to this OTLP collector (http://host:4317)")
	fs.StringVar(&otlpCfg.Protocol, "otlp-protocol", "grpc", "OTLP protocol: grpc|http/protobuf")
	fs.Float64Var(&otlpCfg.TaskSamplingRatio, "otlp-task-sampling", 0, "share of task attempts sent as spans (failed ones always)")
	s3f := addS3Flags(fs)
	dflags := addDeltaFlags(fs, s3f)
	pflags := addPriceFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	prices, err := pflags.prices()
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErr("usage: sparkdx analyze [--format text|json|html] [-o FILE] [--all] [--fail-on warning|critical] [--strict] [--otlp-endpoint URL] [--price-file F] [--price-core-hour N] [--price-gb-hour N] LOG...")
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
	var exp *otlp.Exporter
	if otlpCfg.Endpoint != "" {
		otlpCfg.ServiceName = "sparkdx-analyze"
		if err := otlpCfg.Validate(); err != nil {
			return usageErr("%v", err)
		}
		var err error
		if exp, err = otlp.New(ctx, otlpCfg); err != nil {
			return usageErr("%v", err)
		}
	}
	rules, err := redact.New(dflags.redaction)
	if err != nil {
		return usageErr("--redaction-regex: %v", err)
	}
	now := time.Now()
	var inputs []*report.Input
	worst := diagnose.None
	var attempts []*model.Attempt
	if i := slices.Index(fs.Args(), "-"); i >= 0 && slices.Contains(fs.Args()[i+1:], "-") {
		return usageErr("- (standard input) given twice")
	}
	// A LOG that cannot be read is reported and the others analysed; the
	// command exits 2 at the end.
	unread := 0
	skip := func(err error) {
		unread++
		fmt.Fprintf(stderr, "sparkdx analyze: %v\n", err)
	}
	for _, path := range fs.Args() {
		var logs []*eventlog.Log
		var err error
		if path == "-" {
			var l *eventlog.Log
			l, err = eventlog.OpenStream("stdin", stdin)
			logs = []*eventlog.Log{l}
		} else {
			logs, err = eventlog.Open(ctx, path, eventlog.OpenOptions{S3: s3f.config()})
		}
		if err != nil {
			skip(fmt.Errorf("%s: %w", path, err))
			continue
		}
		if len(logs) == 0 {
			skip(fmt.Errorf("%s: no event log found", path))
			continue
		}
		// A listed directory may hold other files (checksums, notes).
		listing := len(logs) > 1 || filepath.Clean(logs[0].Path) != filepath.Clean(path)
		for _, l := range logs {
			a, src, stats, err := replayLog(ctx, l, replay.Options{Strict: *strict, Redaction: rules}, stderr)
			if errors.Is(err, pipeline.ErrNotSpark) && listing {
				fmt.Fprintf(stderr, "sparkdx analyze: warning: %s: skipped: not a Spark event log\n", l.Path)
				continue
			}
			if err != nil {
				skip(err)
				continue
			}
			if stats.BadLines > 0 {
				first := stats.FirstBad[0]
				first.Name = l.Path
				fmt.Fprintf(stderr, "sparkdx analyze: warning: %s: skipped %d malformed lines (first: %v)\n",
					l.Path, stats.BadLines, first)
			}
			src.Now = now
			d := pipeline.Diagnose(a, nil, src, nil)
			worst = max(worst, diagnose.Worst(d.Findings))
			if exp != nil {
				// The report is the product; a collector that is down
				// or refuses a signal is worth a warning, not a failure.
				if err := exp.ExportApp(ctx, a, d.Result); err != nil {
					fmt.Fprintf(stderr, "sparkdx analyze: %s: otlp export: %v\n", l.Path, err)
				}
			}
			d.Report.ResourceCost.PriceWith(prices)
			if d.Report.Tuning != nil && d.Report.ResourceCost != nil { // a saving in the cost's money
				d.Report.Tuning.Price(prices.For(d.Report.ResourceCost.InstanceType))
			}
			inputs = append(inputs, inputOf(d))
			attempts = append(attempts, a)
		}
	}
	if exp != nil {
		if err := exp.Shutdown(ctx); err != nil {
			fmt.Fprintf(stderr, "sparkdx analyze: otlp export: %v\n", err)
		}
	}
	if len(inputs) == 0 && unread > 0 {
		return inputErr(errors.New("no log could be read"))
	}
	if len(inputs) == 0 {
		return inputErr(fmt.Errorf("%s: no Spark event log found", strings.Join(fs.Args(), ", ")))
	}
	reports := make([]*reportv1.Report, len(inputs))
	for i, in := range inputs {
		reports[i] = in.Report
	}
	if err := dflags.writeApps(ctx, attempts, reports); err != nil {
		return err
	}
	if err := writeReport(stdout, *out, *format, inputs, *all); err != nil {
		return err
	}
	if unread > 0 {
		return inputErr(fmt.Errorf("%d of the logs could not be read (above); the others are analysed", unread))
	}
	if threshold != diagnose.None && worst >= threshold {
		return &exitError{code: 1, err: fmt.Errorf("a finding is %s (--fail-on %s)", worst, threshold)}
	}
	return nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/profile"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

const analyzeUsage = "usage: sparkdx analyze [--format text|json|html] [-o FILE] [--all] [--fail-on warning|critical] [--strict] [--otlp-endpoint URL] [--output-summaries DIR|auto] [--price-file F] [--price-core-hour N] [--price-gb-hour N] [--profiles DIR] LOG..."

// analyzeConfig is analyze's command line: the flags' values as typed,
// checked by Validate before any log is opened.
type analyzeConfig struct {
	logs        []string
	format, out string
	failOn      string
	profiles    string
	strict, all bool
	otlp        otlp.Config
	s3          *s3Flags
	delta       *deltaFlags
	prices      priceFlags
	summaries   string
	memLimit    *string
}

// analyzeFlags declares analyze's flags on fs, into the config it returns.
func analyzeFlags(fs *flag.FlagSet) *analyzeConfig {
	c := &analyzeConfig{}
	fs.StringVar(&c.format, "format", "text", "output format: text (for people), json (sparkdx.report/v1, for programs) or html")
	fs.StringVar(&c.out, "o", "", "write the report to `FILE` instead of stdout")
	fs.BoolVar(&c.strict, "strict", false, "fail on the first malformed line instead of skipping it")
	fs.StringVar(&c.failOn, "fail-on", "", "exit 1 when a finding is at least this severe: warning|critical")
	fs.StringVar(&c.profiles, "profiles", "", "directory of CPU profiles (`DIR`: sparkdx agent --profile-dir, or APP_ID*.pb.gz/.collapsed files): each app's adds top frames per stage (text) and flame graphs (html)")
	fs.BoolVar(&c.all, "all", false, "show every finding in full (text, html): the info ones are counted in one line otherwise")
	fs.StringVar(&c.otlp.Endpoint, "otlp-endpoint", "", "also send each app's trace and metrics to this OTLP collector (http://host:4317)")
	fs.StringVar(&c.otlp.Protocol, "otlp-protocol", "grpc", "OTLP protocol: grpc|http/protobuf")
	fs.Float64Var(&c.otlp.TaskSamplingRatio, "otlp-task-sampling", 0, "share of task attempts sent as spans (failed ones always)")
	fs.StringVar(&c.summaries, "output-summaries", "", "join each write to its committer's _SUCCESS summary (S3A committers' "+
		"IOStatistics): read the copies under `DIR`, or auto: each write's output path (s3a:// through the S3 settings)")
	c.s3 = addS3Flags(fs)
	c.delta = addDeltaFlags(fs, c.s3)
	c.prices = addPriceFlags(fs)
	c.memLimit = addMemoryLimitFlag(fs)
	return c
}

// Validate checks the flags and operands, in the order their errors are
// reported.
func (c *analyzeConfig) Validate() error {
	if _, err := c.prices.prices(); err != nil {
		return err
	}
	if len(c.logs) == 0 {
		return usageErr("%s", analyzeUsage)
	}
	if c.format != "text" && c.format != "json" && c.format != "html" {
		return usageErr("--format %s: want text, json or html", c.format)
	}
	if _, err := c.threshold(); err != nil {
		return err
	}
	if c.profiles != "" {
		if fi, err := os.Stat(c.profiles); err != nil || !fi.IsDir() {
			return usageErr("--profiles %s: not a directory", c.profiles)
		}
	}
	if err := (&summaries{from: c.summaries}).validate(); err != nil {
		return err
	}
	if c.otlp.Endpoint != "" {
		if err := c.otlpConfig().Validate(); err != nil {
			return usageErr("%v", err)
		}
	}
	if _, err := redact.New(c.delta.redaction); err != nil {
		return usageErr("--redaction-regex: %v", err)
	}
	if i := slices.Index(c.logs, "-"); i >= 0 && slices.Contains(c.logs[i+1:], "-") {
		return usageErr("- (standard input) given twice")
	}
	return nil
}

// threshold is --fail-on's severity; diagnose.None without it.
func (c *analyzeConfig) threshold() (diagnose.Severity, error) {
	if c.failOn == "" {
		return diagnose.None, nil
	}
	s, err := diagnose.ParseSeverity(c.failOn)
	if err != nil || s == diagnose.Info {
		return diagnose.None, usageErr("--fail-on %q: want warning or critical", c.failOn)
	}
	return s, nil
}

func (c *analyzeConfig) otlpConfig() otlp.Config {
	cfg := c.otlp
	cfg.ServiceName = "sparkdx-analyze"
	return cfg
}

// runAnalyze replays each LOG, analyzes and diagnoses it, and prints the
// report: text for people, sparkdx.report/v1 JSON for programs, or one
// self-contained HTML page. With --fail-on it exits 1 when a finding
// reaches that severity.
func runAnalyze(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("analyze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := analyzeFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	c.logs = fs.Args()
	if err := c.Validate(); err != nil {
		return err
	}
	restore, err := applyOneShotLimit(*c.memLimit)
	if err != nil {
		return err
	}
	defer restore()
	an, err := c.newAnalysis(stdin, stderr)
	if err != nil {
		return err
	}
	if c.otlp.Endpoint != "" {
		if an.exp, err = otlp.New(ctx, c.otlpConfig()); err != nil {
			return usageErr("%v", err)
		}
	}
	for _, path := range c.logs {
		an.addPath(ctx, path)
	}
	if an.exp != nil {
		if err := an.exp.Shutdown(ctx); err != nil {
			fmt.Fprintf(stderr, "sparkdx analyze: otlp export: %v\n", err)
		}
	}
	return an.finish(ctx, c, stdout)
}

// analysis is the reports of the logs analysed so far and what went wrong.
type analysis struct {
	opts     replay.Options
	profiles string // --profiles DIR
	s3       eventlog.OpenOptions
	prices   cost.PriceList
	exp      *otlp.Exporter // nil without --otlp-endpoint
	now      time.Time
	stdin    io.Reader
	stderr   io.Writer
	inputs   []*report.Input
	attempts []*model.Attempt
	worst    diagnose.Severity
	unread   int // LOGs that could not be read: reported, and exit 2 at the end
	sums     *summaries
}

func (c *analyzeConfig) newAnalysis(stdin io.Reader, stderr io.Writer) (*analysis, error) {
	prices, err := c.prices.prices()
	if err != nil {
		return nil, err
	}
	rules, err := redact.New(c.delta.redaction)
	if err != nil {
		return nil, usageErr("--redaction-regex: %v", err)
	}
	return &analysis{profiles: c.profiles, opts: replay.Options{Strict: c.strict, Redaction: rules}, s3: eventlog.OpenOptions{S3: c.s3.config()},
		prices: prices, now: time.Now(), stdin: stdin, stderr: stderr, worst: diagnose.None,
		sums: &summaries{from: c.summaries, s3: c.s3.config(), stderr: stderr}}, nil
}

// skip reports a LOG that cannot be read; the others are analysed.
func (an *analysis) skip(err error) {
	an.unread++
	fmt.Fprintf(an.stderr, "sparkdx analyze: %v\n", err)
}

// addPath analyses the logs of one LOG operand: a file, a directory, an
// s3:// prefix or - (standard input).
func (an *analysis) addPath(ctx context.Context, path string) {
	var logs []*eventlog.Log
	var err error
	if path == "-" {
		var l *eventlog.Log
		l, err = eventlog.OpenStream("stdin", an.stdin)
		logs = []*eventlog.Log{l}
	} else {
		logs, err = eventlog.Open(ctx, path, an.s3)
	}
	if err != nil {
		an.skip(fmt.Errorf("%s: %w", path, err))
		return
	}
	if len(logs) == 0 {
		an.skip(fmt.Errorf("%s: no event log found", path))
		return
	}
	// A listed directory may hold other files (checksums, notes).
	listing := len(logs) > 1 || filepath.Clean(logs[0].Path) != filepath.Clean(path)
	for _, l := range logs {
		an.addLog(ctx, l, listing)
	}
}

// addLog replays, diagnoses and exports one log.
func (an *analysis) addLog(ctx context.Context, l *eventlog.Log, listing bool) {
	a, src, stats, err := replayLog(ctx, l, an.opts, an.stderr)
	if errors.Is(err, pipeline.ErrNotSpark) && listing {
		fmt.Fprintf(an.stderr, "sparkdx analyze: warning: %s: skipped: not a Spark event log\n", l.Path)
		return
	}
	if err != nil {
		an.skip(err)
		return
	}
	if stats.BadLines > 0 {
		first := stats.FirstBad[0]
		first.Name = l.Path
		fmt.Fprintf(an.stderr, "sparkdx analyze: warning: %s: skipped %d malformed lines (first: %v)\n",
			l.Path, stats.BadLines, first)
	}
	src.Now = an.now
	var res *analyze.Result
	if an.sums.from != "" {
		res = analyze.AnalyzeAt(a, pipeline.LiveNow(a, src))
		src.Summaries = an.sums.of(ctx, a, res)
	}
	d := pipeline.Diagnose(a, res, src, nil)
	an.worst = max(an.worst, diagnose.Worst(d.Findings))
	if an.exp != nil {
		// The report is the product; a collector that is down or
		// refuses a signal is worth a warning, not a failure.
		if err := an.exp.ExportApp(ctx, a, d.Result); err != nil {
			fmt.Fprintf(an.stderr, "sparkdx analyze: %s: otlp export: %v\n", l.Path, err)
		}
	}
	d.Report.ResourceCost.PriceWith(an.prices)
	if d.Report.Tuning != nil && d.Report.ResourceCost != nil { // a saving in the cost's money
		d.Report.Tuning.Price(an.prices.For(d.Report.ResourceCost.InstanceType))
	}
	in := inputOf(d)
	if an.profiles != "" {
		// Profiles add to the report; one that cannot be read is
		// worth a warning, not the report.
		p, files, err := profile.ReadAppProfiles(an.profiles, d.Report.App.ID)
		if err != nil {
			fmt.Fprintf(an.stderr, "sparkdx analyze: warning: %v\n", err)
		}
		in.Profile, in.ProfileFiles = p, files
	}
	an.inputs = append(an.inputs, in)
	an.attempts = append(an.attempts, a)
}

// finish writes the Delta rows and the report, and chooses the exit: 2
// when a LOG could not be read, 1 when a finding reaches --fail-on.
func (an *analysis) finish(ctx context.Context, c *analyzeConfig, stdout io.Writer) error {
	if len(an.inputs) == 0 && an.unread > 0 {
		return inputErr(errors.New("no log could be read"))
	}
	if len(an.inputs) == 0 {
		return inputErr(fmt.Errorf("%s: no Spark event log found", strings.Join(c.logs, ", ")))
	}
	reports := make([]*reportv1.Report, len(an.inputs))
	for i, in := range an.inputs {
		reports[i] = in.Report
	}
	if err := c.delta.writeApps(ctx, an.attempts, reports); err != nil {
		return err
	}
	if err := writeReport(stdout, c.out, c.format, an.inputs, c.all); err != nil {
		return err
	}
	if an.unread > 0 {
		return inputErr(fmt.Errorf("%d of the logs could not be read (above); the others are analysed", an.unread))
	}
	threshold, _ := c.threshold() // checked by Validate
	if threshold != diagnose.None && an.worst >= threshold {
		return &exitError{code: 1, err: fmt.Errorf("a finding is %s (--fail-on %s)", an.worst, threshold)}
	}
	return nil
}

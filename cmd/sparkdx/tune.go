package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/tune"
)

// runTune analyses one LOG and prints the configuration changes tune
// recommends: for people (text), as spark-submit --conf lines, as a
// spark-defaults.conf fragment, or as JSON.
func runTune(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, conf (--conf lines), defaults (spark-defaults.conf) or json")
	strict := fs.Bool("strict", false, "fail on the first malformed line instead of skipping it")
	pflags := addPriceFlags(fs)
	s3f := addS3Flags(fs)
	memLimit := addMemoryLimitFlag(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("usage: sparkdx tune [--format text|conf|defaults|json] [--price-file F] [--price-core-hour N] [--price-gb-hour N] LOG")
	}
	switch *format {
	case "text", "conf", "defaults", "json":
	default:
		return usageErr("--format %s: want text, conf, defaults or json", *format)
	}
	prices, err := pflags.prices()
	if err != nil {
		return err
	}
	restore, err := applyOneShotLimit(*memLimit)
	if err != nil {
		return err
	}
	defer restore()
	path := fs.Arg(0)
	logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{S3: s3f.config()})
	if err != nil {
		return inputErr(fmt.Errorf("%s: %w", path, err))
	}
	if len(logs) != 1 {
		return inputErr(fmt.Errorf("%s: %d event logs, want one", path, len(logs)))
	}
	a, src, _, err := pipeline.Replay(ctx, logs[0], replay.Options{Strict: *strict})
	if err != nil {
		return inputErr(err)
	}
	d := pipeline.Diagnose(a, nil, src, nil)
	plan := tune.Recommend(a, d.Result, d.Findings)
	plan.Price(prices.For(cost.InstanceTypeOf(a)))
	switch *format {
	case "conf":
		for _, l := range plan.ConfLines() {
			fmt.Fprintln(stdout, l)
		}
	case "defaults":
		fmt.Fprint(stdout, plan.DefaultsConf())
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(plan)
	default:
		writeTuneText(stdout, plan)
	}
	return nil
}

// writeTuneText prints the plan for a person: each change with its
// evidence, predicted effect and risk, then the --conf lines.
func writeTuneText(w io.Writer, p *tune.Plan) {
	fmt.Fprintf(w, "%s  %d changes recommended\n", p.AppID, len(p.Changes))
	for _, l := range report.TuningLines(p) {
		fmt.Fprintln(w, l)
	}
	if len(p.Changes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(p.ConfLines(), " \\\n"))
	}
}

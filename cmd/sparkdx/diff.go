package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/report"
)

// runDiff compares two runs of an application: per-phase and per-stage
// changes and the findings fixed or new.
func runDiff(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text (for people), json (sparkdx.diff/v1, for programs) or html")
	out := fs.String("o", "", "write the comparison to `FILE` instead of stdout")
	strict := fs.Bool("strict", false, "fail on the first malformed line instead of skipping it")
	s3f := addS3Flags(fs)
	memLimit := addMemoryLimitFlag(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErr("usage: sparkdx diff [--format text|json|html] [-o FILE] BEFORE_LOG AFTER_LOG")
	}
	if *format != "text" && *format != "json" && *format != "html" {
		return usageErr("--format %s: want text, json or html", *format)
	}
	restore, err := applyOneShotLimit(*memLimit)
	if err != nil {
		return err
	}
	defer restore()
	now := time.Now()
	var runs [2]*report.Input
	var sides [2]diff.Input
	for i, path := range fs.Args() {
		in, err := loadOne(ctx, path, eventlog.OpenOptions{S3: s3f.config()}, *strict, now, stderr)
		if err != nil {
			return err
		}
		runs[i], sides[i] = in, diff.Input{Report: in.Report, Result: in.Result}
	}
	d := diff.Compare(sides[0], sides[1])
	w, closeOut, err := outputFile(*out, stdout)
	if err != nil {
		return inputErr(err)
	}
	switch *format {
	case "text":
		err = report.WriteDiffText(w, d, textOptions(w))
	case "html":
		err = report.WriteDiffHTML(w, d, runs[0], runs[1])
	default:
		err = report.WriteDiffJSON(w, d)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}

// loadOne replays, analyzes and diagnoses the one application attempt at
// path.
func loadOne(ctx context.Context, path string, opts eventlog.OpenOptions, strict bool, now time.Time, stderr io.Writer) (*report.Input, error) {
	logs, err := eventlog.Open(ctx, path, opts)
	if err != nil {
		return nil, inputErr(fmt.Errorf("%s: %w", path, err))
	}
	if len(logs) != 1 {
		return nil, usageErr("%s: holds %d event logs, want exactly one to compare", path, len(logs))
	}
	l := logs[0]
	a, src, _, err := replayLog(ctx, l, replay.Options{Strict: strict}, stderr)
	if err != nil {
		return nil, inputErr(err)
	}
	src.Now = now
	return inputOf(pipeline.Diagnose(a, nil, src, nil)), nil
}

package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// deltaFlags are the Delta Lake export flags shared by analyze and serve.
type deltaFlags struct {
	dest      string
	redaction string
	s3        *s3Flags // how to reach an s3:// destination
}

func addDeltaFlags(fs *flag.FlagSet, s3f *s3Flags) *deltaFlags {
	d := &deltaFlags{s3: s3f}
	fs.StringVar(&d.dest, "delta", "", "append apps, jobs, stages, executors, findings to Delta tables under `DIR|s3://BUCKET/PREFIX`")
	fs.StringVar(&d.redaction, "redaction-regex", redact.SparkDefault,
		"Spark properties to redact (key or value; an app's own spark.redaction.regex adds to it); cloud keys and passwords in URLs and text are always redacted")
	return d
}

// open returns the tables, or nil when --delta was not given.
func (d *deltaFlags) open(ctx context.Context) (*delta.Tables, *delta.Redactor, error) {
	if d.dest == "" {
		return nil, nil, nil
	}
	red, err := delta.NewRedactor(d.redaction)
	if err != nil {
		return nil, nil, usageErr("--redaction-regex: %v", err)
	}
	loc, err := delta.Locate(d.dest, d.s3.config())
	if err != nil {
		return nil, nil, usageErr("--delta %s: %v", d.dest, err)
	}
	ts, err := delta.OpenTables(ctx, loc, delta.Options{EngineInfo: "sparkdx"})
	if err != nil {
		return nil, nil, &exitError{code: 2, err: fmt.Errorf("--delta %s: %w", d.dest, err)}
	}
	return ts, red, nil
}

// writeApps appends each analysed attempt once (keyed by app and attempt id).
func (d *deltaFlags) writeApps(ctx context.Context, attempts []*model.Attempt, reports []*reportv1.Report) error {
	ts, red, err := d.open(ctx)
	if err != nil || ts == nil {
		return err
	}
	now := time.Now()
	for i, a := range attempts {
		if _, err := ts.WriteApp(ctx, delta.RowsOf(a, reports[i], red, now)); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--delta %s: %s: %w", d.dest, a.AppID, err)}
		}
	}
	return nil
}

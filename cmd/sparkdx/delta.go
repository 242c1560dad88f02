package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/report"
)

// deltaFlags are the Delta Lake export flags shared by analyze and serve.
type deltaFlags struct {
	dest      string
	redaction string
}

func addDeltaFlags(fs *flag.FlagSet) *deltaFlags {
	d := &deltaFlags{}
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
	loc, err := deltaLocator(d.dest)
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
func (d *deltaFlags) writeApps(ctx context.Context, attempts []*model.Attempt, reports []*report.Report) error {
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

// deltaLocator maps DIR or s3://bucket/prefix to table storage. S3 is
// reached through the AWS environment: AWS_ENDPOINT_URL (path-style, for
// MinIO and other on-premise stores), AWS_REGION, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, else ~/.aws/credentials or the
// instance role.
func deltaLocator(dest string) (delta.Locator, error) {
	rest, ok := strings.CutPrefix(dest, "s3://")
	if !ok {
		if strings.Contains(dest, "://") {
			return nil, fmt.Errorf("want a directory or s3://bucket/prefix")
		}
		return delta.DirLocator(dest), nil
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return nil, fmt.Errorf("no bucket")
	}
	cfg := eventlog.S3Config{}.WithEnv(os.Getenv)
	// A set endpoint is MinIO or an on-premise store: buckets in the path.
	cfg.PathStyle = cfg.Endpoint != ""
	client, err := eventlog.NewS3Client(cfg)
	if err != nil {
		return nil, err
	}
	return delta.S3Locator(client, bucket, prefix), nil
}

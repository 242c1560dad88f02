package delta

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/s3"
)

// Table names under the sparkdx Delta root.
const (
	TableApps      = "apps"
	TableJobs      = "jobs"
	TableStages    = "stages"
	TableExecutors = "executors"
	TableFindings  = "findings"
	TableSamples   = "samples"
)

// Locator gives the storage of one named table under a root.
type Locator func(table string) Storage

// DirLocator puts each table in a subdirectory of dir.
func DirLocator(dir string) Locator {
	return func(table string) Storage { return NewDirStore(filepath.Join(dir, table)) }
}

// S3Locator puts each table under prefix/table in bucket.
func S3Locator(client *minio.Client, bucket, prefix string) Locator {
	return func(table string) Storage {
		return NewS3Store(client, bucket, strings.Trim(strings.Trim(prefix, "/")+"/"+table, "/"))
	}
}

// Locate maps a Delta root to table storage: a local directory, or an
// s3://, s3a:// or s3n:// bucket and prefix reached through cfg (the same
// URLs and settings event logs take).
func Locate(root string, cfg s3.Config) (Locator, error) {
	if !s3.IsURL(root) {
		if root == "" || strings.Contains(root, "://") {
			return nil, errors.New("want a directory or s3://bucket/prefix")
		}
		return DirLocator(root), nil
	}
	bucket, prefix, err := s3.Split(root)
	if err != nil {
		return nil, errors.New("no bucket")
	}
	client, err := s3.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return S3Locator(client, bucket, prefix), nil
}

// Tables are the six sparkdx tables under one root.
type Tables struct {
	Apps      *Table[AppRow]
	Jobs      *Table[JobRow]
	Stages    *Table[StageRow]
	Executors *Table[ExecutorRow]
	Findings  *Table[FindingRow]
	Samples   *Table[SampleRow]

	// liveMu orders WriteLive and WriteApp of one process: a final
	// write between a watermark's read and its commit would repeat rows.
	liveMu sync.Mutex
}

// OpenTables opens (creating when absent) every sparkdx table. opts
// applies to each; Name and PartitionBy are set per table.
func OpenTables(ctx context.Context, loc Locator, opts Options) (*Tables, error) {
	var ts Tables
	var err error
	open := func(name string, desc string, partition ...string) Options {
		o := opts
		o.Name, o.Description, o.PartitionBy = name, desc, partition
		return o
	}
	if ts.Apps, err = Open[AppRow](ctx, loc(TableApps), open(TableApps, "sparkdx: one row per Spark application attempt")); err != nil {
		return nil, fmt.Errorf("table %s: %w", TableApps, err)
	}
	if ts.Jobs, err = Open[JobRow](ctx, loc(TableJobs), open(TableJobs, "sparkdx: Spark jobs")); err != nil {
		return nil, fmt.Errorf("table %s: %w", TableJobs, err)
	}
	if ts.Stages, err = Open[StageRow](ctx, loc(TableStages), open(TableStages, "sparkdx: Spark stage attempts")); err != nil {
		return nil, fmt.Errorf("table %s: %w", TableStages, err)
	}
	if ts.Executors, err = Open[ExecutorRow](ctx, loc(TableExecutors), open(TableExecutors, "sparkdx: executors and the driver")); err != nil {
		return nil, fmt.Errorf("table %s: %w", TableExecutors, err)
	}
	if ts.Findings, err = Open[FindingRow](ctx, loc(TableFindings), open(TableFindings, "sparkdx: diagnosis findings")); err != nil {
		return nil, fmt.Errorf("table %s: %w", TableFindings, err)
	}
	if ts.Samples, err = Open[SampleRow](ctx, loc(TableSamples), open(TableSamples, "sparkdx: metric samples (agent, OTLP)", "date")); err != nil {
		return nil, fmt.Errorf("table %s: %w", TableSamples, err)
	}
	return &ts, nil
}

// AppTxnID is the transaction identifier that makes writing an application
// attempt idempotent in every per-app table.
func AppTxnID(appID, attemptID string) string { return "sparkdx-app:" + appID + "/" + attemptID }

// HasApp says whether an application attempt was written completely (its
// apps row, written last, is there), as the tables were last read.
func (ts *Tables) HasApp(appID, attemptID string) bool {
	return ts.Apps.HasTxn(AppTxnID(appID, attemptID), 1)
}

// WriteApp appends one application attempt to apps, jobs, stages,
// executors and findings, once: an attempt already written (same app id and
// attempt id) is skipped table by table, so a retry after a crash completes
// what was missing. apps is written last: a row there means the others
// are complete. The jobs and stage attempts written while the application
// ran (WriteLive) are left out. It reports whether the apps row was new.
func (ts *Tables) WriteApp(ctx context.Context, rows AppRows) (bool, error) {
	ts.liveMu.Lock()
	defer ts.liveMu.Unlock()
	txn := AppendOptions{TxnAppID: AppTxnID(rows.App.AppID, rows.App.AttemptID), TxnVersion: 1}
	jv, sv := ts.Live(rows.App.AppID, rows.App.AttemptID)
	rows.Jobs, rows.Stages = notYet(rows.Jobs, jobEnd, jv), notYet(rows.Stages, stageEnd, sv)
	if _, err := ts.Jobs.Append(ctx, rows.Jobs, txn); err != nil {
		return false, fmt.Errorf("table %s: %w", TableJobs, err)
	}
	if _, err := ts.Stages.Append(ctx, rows.Stages, txn); err != nil {
		return false, fmt.Errorf("table %s: %w", TableStages, err)
	}
	if _, err := ts.Executors.Append(ctx, rows.Executors, txn); err != nil {
		return false, fmt.Errorf("table %s: %w", TableExecutors, err)
	}
	if _, err := ts.Findings.Append(ctx, rows.Findings, txn); err != nil {
		return false, fmt.Errorf("table %s: %w", TableFindings, err)
	}
	res, err := ts.Apps.Append(ctx, []AppRow{rows.App}, txn)
	if err != nil {
		return false, fmt.Errorf("table %s: %w", TableApps, err)
	}
	return !res.Skipped, nil
}

// Maintained is what maintenance does on one table, whatever its rows.
type Maintained interface {
	Optimize(ctx context.Context, o OptimizeOptions) (OptimizeResult, error)
	Vacuum(ctx context.Context, o VacuumOptions) (VacuumResult, error)
	CleanLog(ctx context.Context, retention time.Duration, now time.Time) (CleanLogResult, error)
}

// TableNames are the six tables under a root, in the order of Each.
func TableNames() []string {
	return []string{TableApps, TableJobs, TableStages, TableExecutors, TableFindings, TableSamples}
}

// NamedTable is one of the six tables, for maintenance.
type NamedTable struct {
	Name  string
	Table Maintained
}

// Each returns every table, in the order of the table names.
func (ts *Tables) Each() []NamedTable {
	return []NamedTable{{TableApps, ts.Apps}, {TableJobs, ts.Jobs}, {TableStages, ts.Stages},
		{TableExecutors, ts.Executors}, {TableFindings, ts.Findings}, {TableSamples, ts.Samples}}
}

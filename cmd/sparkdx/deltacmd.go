package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
)

const deltaUsage = "delta optimize|vacuum|clean-log [--dry-run] [--retention 168h] DIR|s3://BUCKET/PREFIX"

// deltaConfig is delta's command line: the operation, the table root and
// the flags' values, checked by Validate before any table is opened.
type deltaConfig struct {
	op        string
	roots     []string // one
	dryRun    bool
	retention time.Duration
	target    int64
	s3        *s3Flags
}

// deltaCmdFlags declares delta's flags on fs, into the config it returns.
func deltaCmdFlags(fs *flag.FlagSet) *deltaConfig {
	c := &deltaConfig{}
	fs.BoolVar(&c.dryRun, "dry-run", false, "vacuum: list what would be deleted, delete nothing")
	fs.DurationVar(&c.retention, "retention", 0, "vacuum: keep unreferenced files younger than this (default 168h); "+
		"clean-log: keep log entries younger than this (default 720h)")
	c.s3 = addS3Flags(fs)
	fs.Int64Var(&c.target, "target-file-bytes", delta.DefaultTargetFileBytes, "optimize: pack small files into files of up to this size")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: sparkdx %s\n\n"+
			"optimize   rewrite each partition's small files into few (a Delta commit with dataChange=false)\n"+
			"vacuum     delete files no version within the retention references: replaced files, crashed writers' orphans\n"+
			"clean-log  delete log entries older than the retention before the newest such checkpoint\n\n", deltaUsage)
		fs.PrintDefaults()
	}
	return c
}

// Validate checks the operands, in the order their errors are reported.
func (c *deltaConfig) Validate() error {
	if len(c.roots) != 1 {
		return usageErr("one table root (usage: sparkdx %s)", deltaUsage)
	}
	if c.op != "optimize" && c.op != "vacuum" && c.op != "clean-log" {
		return usageErr("unknown delta operation %q (usage: sparkdx %s)", c.op, deltaUsage)
	}
	return nil
}

// runDelta maintains the Delta tables sparkdx writes: optimize compacts
// each partition's small files, vacuum deletes files no recent version
// needs (replaced ones, and the orphans of crashed writers), clean-log
// deletes log entries a checkpoint has made redundant.
func runDelta(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("delta", flag.ContinueOnError)
	c := deltaCmdFlags(fs)
	if len(args) == 0 {
		return usageErr("usage: sparkdx %s", deltaUsage)
	}
	c.op = args[0]
	if c.op == "-h" || c.op == "--help" {
		return parseFlags(fs, args, stdout)
	}
	if err := parseFlags(fs, args[1:], stdout); err != nil {
		return err
	}
	c.roots = fs.Args()
	if err := c.Validate(); err != nil {
		return err
	}
	ts, err := c.open(ctx)
	if err != nil {
		return err
	}
	for _, nt := range ts.Each() {
		line, err := c.maintain(ctx, nt.Table)
		if err != nil {
			return fmt.Errorf("%s: %w", nt.Name, err)
		}
		if _, err := fmt.Fprintf(stdout, "%-10s %s\n", nt.Name, line); err != nil {
			return err
		}
	}
	return nil
}

// open opens the tables under the root; maintenance never creates a
// table: each must have a log already.
func (c *deltaConfig) open(ctx context.Context) (*delta.Tables, error) {
	root := c.roots[0]
	loc, err := delta.Locate(root, c.s3.config())
	if err != nil {
		return nil, usageErr("%s: %v", root, err)
	}
	for _, name := range delta.TableNames() {
		if names, err := loc(name).List(ctx, "_delta_log/"); err != nil || len(names) == 0 {
			return nil, &exitError{code: 2, err: fmt.Errorf("%s: no Delta table %s (sparkdx delta maintains the tables analyze and serve --delta write): %v",
				root, name, err)}
		}
	}
	ts, err := delta.OpenTables(ctx, loc, delta.Options{EngineInfo: "sparkdx"})
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("%s: %w", root, err)}
	}
	return ts, nil
}

// maintain runs the operation on one table and says what it did.
func (c *deltaConfig) maintain(ctx context.Context, t delta.Maintained) (string, error) {
	switch c.op {
	case "optimize":
		r, err := t.Optimize(ctx, delta.OptimizeOptions{TargetFileBytes: c.target})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d files → %d (%d rows rewritten in %d partitions), version %d", r.FilesBefore, r.FilesAfter,
			r.Rows, r.Partitions, r.Version), nil
	case "vacuum":
		r, err := t.Vacuum(ctx, delta.VacuumOptions{Retention: c.retention, DryRun: c.dryRun})
		if err != nil {
			return "", err
		}
		verb := "deleted"
		if c.dryRun {
			verb = "would delete"
		}
		line := fmt.Sprintf("%s %d files (%d bytes); %d unreferenced files kept within the retention", verb, len(r.Deleted), r.Bytes, r.Kept)
		if c.dryRun {
			for _, k := range r.Deleted {
				line += "\n  " + k
			}
		}
		return line, nil
	}
	r, err := t.CleanLog(ctx, c.retention, time.Now())
	if err != nil {
		return "", err
	}
	if r.Checkpoint < 0 {
		return "no checkpoint past the retention: nothing deleted", nil
	}
	return fmt.Sprintf("deleted %d log entries; read from checkpoint %d", len(r.Deleted), r.Checkpoint), nil
}

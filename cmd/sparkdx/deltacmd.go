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

// runDelta maintains the Delta tables sparkdx writes: optimize compacts
// each partition's small files, vacuum deletes files no recent version
// needs (replaced ones, and the orphans of crashed writers), clean-log
// deletes log entries a checkpoint has made redundant.
func runDelta(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("delta", flag.ContinueOnError)
	dryRun := fs.Bool("dry-run", false, "vacuum: list what would be deleted, delete nothing")
	retention := fs.Duration("retention", 0, "vacuum: keep unreferenced files younger than this (default 168h); "+
		"clean-log: keep log entries younger than this (default 720h)")
	s3f := addS3Flags(fs)
	target := fs.Int64("target-file-bytes", delta.DefaultTargetFileBytes, "optimize: pack small files into files of up to this size")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: sparkdx %s\n\n"+
			"optimize   rewrite each partition's small files into few (a Delta commit with dataChange=false)\n"+
			"vacuum     delete files no version within the retention references: replaced files, crashed writers' orphans\n"+
			"clean-log  delete log entries older than the retention before the newest such checkpoint\n\n", deltaUsage)
		fs.PrintDefaults()
	}
	if len(args) == 0 {
		return usageErr("usage: sparkdx %s", deltaUsage)
	}
	op := args[0]
	if op == "-h" || op == "--help" {
		return parseFlags(fs, args, stdout)
	}
	if err := parseFlags(fs, args[1:], stdout); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("one table root (usage: sparkdx %s)", deltaUsage)
	}
	if op != "optimize" && op != "vacuum" && op != "clean-log" {
		return usageErr("unknown delta operation %q (usage: sparkdx %s)", op, deltaUsage)
	}
	root := fs.Arg(0)
	loc, err := delta.Locate(root, s3f.config())
	if err != nil {
		return usageErr("%s: %v", root, err)
	}
	// Maintenance never creates a table: each must have a log already.
	for _, name := range delta.TableNames() {
		if names, err := loc(name).List(ctx, "_delta_log/"); err != nil || len(names) == 0 {
			return &exitError{code: 2, err: fmt.Errorf("%s: no Delta table %s (sparkdx delta maintains the tables analyze and serve --delta write): %v",
				root, name, err)}
		}
	}
	ts, err := delta.OpenTables(ctx, loc, delta.Options{EngineInfo: "sparkdx"})
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("%s: %w", root, err)}
	}
	for _, nt := range ts.Each() {
		var line string
		switch op {
		case "optimize":
			r, err := nt.Table.Optimize(ctx, delta.OptimizeOptions{TargetFileBytes: *target})
			if err != nil {
				return fmt.Errorf("%s: %w", nt.Name, err)
			}
			line = fmt.Sprintf("%d files → %d (%d rows rewritten in %d partitions), version %d", r.FilesBefore, r.FilesAfter,
				r.Rows, r.Partitions, r.Version)
		case "vacuum":
			r, err := nt.Table.Vacuum(ctx, delta.VacuumOptions{Retention: *retention, DryRun: *dryRun})
			if err != nil {
				return fmt.Errorf("%s: %w", nt.Name, err)
			}
			verb := "deleted"
			if *dryRun {
				verb = "would delete"
			}
			line = fmt.Sprintf("%s %d files (%d bytes); %d unreferenced files kept within the retention", verb, len(r.Deleted), r.Bytes, r.Kept)
			if *dryRun {
				for _, k := range r.Deleted {
					line += "\n  " + k
				}
			}
		case "clean-log":
			r, err := nt.Table.CleanLog(ctx, *retention, time.Now())
			if err != nil {
				return fmt.Errorf("%s: %w", nt.Name, err)
			}
			line = fmt.Sprintf("deleted %d log entries; read from checkpoint %d", len(r.Deleted), r.Checkpoint)
			if r.Checkpoint < 0 {
				line = "no checkpoint past the retention: nothing deleted"
			}
		}
		if _, err := fmt.Fprintf(stdout, "%-10s %s\n", nt.Name, line); err != nil {
			return err
		}
	}
	return nil
}

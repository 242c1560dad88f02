package delta

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestMaintenance compacts, vacuums and cleans the log of a lake written
// from real event logs plus samples over two days in twelve commits, with
// the orphans a writer killed before its commit leaves: after each step
// sparkdx's own reading has every row, the right files, and delta-rs (and
// at the end Spark with Delta Lake) reads the same.
func TestMaintenance(t *testing.T) {
	ctx := context.Background()
	lake := writeLake(t, nil)
	ts, err := OpenTables(ctx, DirLocator(lake.dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	samplesDir := filepath.Join(lake.dir, TableSamples)
	before := checkTable(t, samplesDir)

	// A writer killed between its data file and its commit, and one killed
	// while writing (DirStore's temporary file), both long ago; and the same
	// from a writer still at work (now).
	old := time.Now().Add(-30 * 24 * time.Hour)
	orphans := map[string]time.Time{
		"date=2026-11-21/part-00000-0a0a0a0a-dead-beef-0000-000000000001.c000.zstd.parquet": old,
		"date=2026-11-21/.part-00000-0a0a0a0a.c000.zstd.parquet.tmp-12345":                  old,
		"date=2026-11-22/part-00000-0a0a0a0a-dead-beef-0000-000000000002.c000.zstd.parquet": time.Now(),
	}
	for key, at := range orphans {
		p := filepath.Join(samplesDir, filepath.FromSlash(key))
		if err := os.WriteFile(p, []byte("PAR1 cut short"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}

	// Optimize: the twelve appends' files become one per date, as one
	// commit that changes no data; an append that lands after it is kept.
	res, err := ts.Samples.Optimize(ctx, OptimizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after := checkTable(t, samplesDir)
	t.Logf("samples: %d files before optimize, %d after (%d rows rewritten in %d partitions), version %d → %d",
		res.FilesBefore, res.FilesAfter, res.Rows, res.Partitions, before.Version, res.Version)
	if res.FilesBefore != len(before.Files) || res.FilesAfter != 2 || len(after.Files) != 2 || res.Partitions != 2 {
		t.Errorf("optimize: %+v; the table has %d files, want one per date (2)", res, len(after.Files))
	}
	if after.Rows != before.Rows || res.Rows != before.Rows || after.Version != before.Version+1 {
		t.Errorf("optimize: %d rows at version %d (rewrote %d), want %d rows at version %d", after.Rows, after.Version, res.Rows,
			before.Rows, before.Version+1)
	}
	if again, err := ts.Samples.Optimize(ctx, OptimizeOptions{}); err != nil || again.FilesRemoved != 0 || again.Version != after.Version {
		t.Errorf("optimize of a compacted table: %+v, %v; want nothing done", again, err)
	}
	// Readers see the same rows now, and time travel before the rewrite
	// still reads the old files.
	rs := deltaread.DeltaRS(t, nil)
	compareReader(t, rs, lake, rs.Read(lake.dir, lakeTables, lake.firstVersion))

	// Vacuum within the retention deletes nothing referenced by a recent
	// version; past it, the replaced files and the old orphans go, the
	// recent orphan and every live file stay.
	vr, err := ts.Samples.Vacuum(ctx, VacuumOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"date=2026-11-21/.part-00000-0a0a0a0a.c000.zstd.parquet.tmp-12345",
		"date=2026-11-21/part-00000-0a0a0a0a-dead-beef-0000-000000000001.c000.zstd.parquet"}; !slices.Equal(vr.Deleted, want) {
		t.Errorf("vacuum within the retention deleted %v, want only the old orphans %v", vr.Deleted, want)
	}
	later := time.Now().Add(8 * 24 * time.Hour)
	dry, err := ts.Samples.Vacuum(ctx, VacuumOptions{Now: later, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	vr, err = ts.Samples.Vacuum(ctx, VacuumOptions{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	if len(vr.Deleted) != len(before.Files)+1 || !slices.Equal(dry.Deleted, vr.Deleted) {
		t.Errorf("vacuum 8 days later deleted %d files (dry run %d), want the %d replaced ones and the recent orphan",
			len(vr.Deleted), len(dry.Deleted), len(before.Files))
	}
	for _, f := range checkTable(t, samplesDir).Files {
		if _, err := os.Stat(filepath.Join(samplesDir, filepath.FromSlash(f.Path))); err != nil {
			t.Errorf("vacuum deleted a live file: %v", err)
		}
	}

	// Log cleanup: the commits before the checkpoint go once past the
	// retention; the table is read from the checkpoint on.
	cl, err := ts.Samples.CleanLog(ctx, 0, time.Now().Add(31*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if cl.Checkpoint < 10 || len(cl.Deleted) < 10 || !strings.HasSuffix(cl.Deleted[0], "00000000000000000000.json") {
		t.Errorf("clean log: %+v; want the commits before checkpoint 10 deleted", cl)
	}
	// Every table, maintained the same way.
	for _, nt := range ts.Each() {
		if _, err := nt.Table.Optimize(ctx, OptimizeOptions{}); err != nil {
			t.Errorf("%s: optimize: %v", nt.Name, err)
		}
		if _, err := nt.Table.Vacuum(ctx, VacuumOptions{Now: later}); err != nil {
			t.Errorf("%s: vacuum: %v", nt.Name, err)
		}
	}
	// sparkdx still appends, and other engines read the result.
	more := []SampleRow{{Date: SampleDate(lake.day), Time: lake.day, Metric: "jvm.memory.used", Value: 1, Unit: "By", Host: "h",
		AppID: lake.apps[0], ExecutorID: "9", Role: "executor", Service: "sparkdx-agent"}}
	if _, err := ts.Samples.Append(ctx, more, AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	lake.valueSum++
	final := checkTable(t, samplesDir)
	if final.Rows != before.Rows+1 {
		t.Errorf("after maintenance and one append: %d rows, want %d", final.Rows, before.Rows+1)
	}
	sparktest.Live(t)
	for _, r := range []deltaread.Reader{rs, deltaread.Spark(t, nil)} {
		views := r.Read(lake.dir, lakeTables, -1)
		for _, name := range lakeTables {
			own, v := checkTable(t, filepath.Join(lake.dir, name)), views[name]
			if v.Version != own.Version || v.Rows != own.Rows || v.Files != len(own.Files) {
				t.Errorf("%s after maintenance: %s reads version %d, %d rows in %d files; sparkdx %d, %d rows in %d files",
					name, r.Name, v.Version, v.Rows, v.Files, own.Version, own.Rows, len(own.Files))
			}
		}
		if s := views[TableSamples]; s.ValueSum != lake.valueSum {
			t.Errorf("samples after maintenance: %s sums values to %v, want %v", r.Name, s.ValueSum, lake.valueSum)
		}
	}
}

// TestMaintenanceS3 runs the maintenance on MinIO: optimize, vacuum of the
// replaced files, log cleanup, and delta-rs reads s3:// as sparkdx reads
// the objects.
func TestMaintenanceS3(t *testing.T) {
	ctx := context.Background()
	m := sparktest.StartMinIO(t)
	client := m.Bucket(t, "lake")
	loc := S3Locator(client, "lake", "sparkdx")
	lake := writeLake(t, loc)
	ts, err := OpenTables(ctx, loc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ts.Samples.Optimize(ctx, OptimizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(8 * 24 * time.Hour)
	vr, err := ts.Samples.Vacuum(ctx, VacuumOptions{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := ts.Samples.CleanLog(ctx, 0, time.Now().Add(31*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if res.FilesBefore != 12 || res.FilesAfter != 2 || len(vr.Deleted) != 12 || cl.Checkpoint != 10 || len(cl.Deleted) != 10 {
		t.Errorf("on S3: optimize %+v, vacuum deleted %d, clean-log %+v; want 12 → 2 files, the 12 replaced deleted, "+
			"commits 0–9 before checkpoint 10 deleted", res, len(vr.Deleted), cl)
	}
	lake.dir = download(t, client, "lake", "sparkdx")
	own := checkTable(t, filepath.Join(lake.dir, TableSamples))
	rs := deltaread.DeltaRS(t, minioOptions(m))
	v := rs.Read("s3://lake/sparkdx", []string{TableSamples}, -1)[TableSamples]
	if v.Version != own.Version || v.Rows != own.Rows || v.Files != 2 || v.ValueSum != lake.valueSum {
		t.Errorf("samples on S3 after maintenance: delta-rs reads version %d, %d rows in %d files, Σ %v; sparkdx version %d, %d rows, Σ %v",
			v.Version, v.Rows, v.Files, v.ValueSum, own.Version, own.Rows, lake.valueSum)
	}
}

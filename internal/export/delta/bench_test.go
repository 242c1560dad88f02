package delta

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// dirBytes is the size of every file under dir.
func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkWriteApp writes the big real event log's attempt (apps, jobs,
// stages, executors) to fresh, already created tables; bytes are the table
// bytes the write adds.
func BenchmarkWriteApp(b *testing.B) {
	ctx := context.Background()
	path := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a, stats, err := replay.Log(ctx, logs[0], replay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	red, _ := NewRedactor("")
	res := analyze.Analyze(a)
	findings := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All)
	rows := RowsOf(a, reportv1.Build(a, res, findings, reportv1.Log{Path: path, Bytes: stats.Bytes, Events: stats.Events}), red, time.Now())
	b.Logf("%d jobs, %d stages, %d executors", len(rows.Jobs), len(rows.Stages), len(rows.Executors))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer() // creating the six empty tables is not the write
		dir := b.TempDir()
		ts, err := OpenTables(ctx, DirLocator(dir), Options{})
		if err != nil {
			b.Fatal(err)
		}
		before := dirBytes(b, dir)
		b.StartTimer()
		if _, err := ts.WriteApp(ctx, rows); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.StopTimer()
			b.SetBytes(dirBytes(b, dir) - before)
			b.StartTimer()
		}
	}
}

// BenchmarkAppendSamples appends batches of 100000 samples (what the
// exporter's max_rows default commits at once) across two days.
func BenchmarkAppendSamples(b *testing.B) {
	ctx := context.Background()
	const n = 100000
	rows := make([]SampleRow, n)
	t0 := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
	for i := range rows {
		at := t0.Add(time.Duration(i) * 50 * time.Millisecond)
		rows[i] = SampleRow{Date: SampleDate(at), Time: at, Metric: "jvm.memory.used", Value: float64(i * 4096), Unit: "By",
			Host: "node-1", AppID: "app-20261121230000-0001", ExecutorID: fmt.Sprint(i % 16), Role: "executor",
			Service: "sparkdx-agent", Attributes: map[string]string{"jvm.memory.pool.name": "G1 Old Gen", "jvm.memory.type": "heap"}}
	}
	dir := b.TempDir()
	tbl, err := Open[SampleRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	before := dirBytes(b, dir)
	for i := 0; b.Loop(); i++ {
		if _, err := tbl.Append(ctx, rows, AppendOptions{}); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.SetBytes(dirBytes(b, dir) - before)
		}
	}
}

// BenchmarkOpen opens a table of 100 commits (checkpoints every 10): the
// cost a writer pays to start, or to catch up after a conflict.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		if _, err := tbl.Append(ctx, testRows(10, i*10), AppendOptions{TxnAppID: fmt.Sprint("app-", i), TxnVersion: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOptimize compacts a day's worth of small files: 144 appends of
// 1,000 samples (a collector flushing every 10 minutes) into one file per
// date. Bytes are the data files read and rewritten.
func BenchmarkOptimize(b *testing.B) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	var rewritten, before, after int64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		tbl, err := Open[SampleRow](ctx, NewDirStore(b.TempDir()), Options{PartitionBy: []string{"date"}})
		if err != nil {
			b.Fatal(err)
		}
		for f := range 144 {
			rows := make([]SampleRow, 1000)
			for i := range rows {
				at := t0.Add(time.Duration(f)*10*time.Minute + time.Duration(i)*600*time.Millisecond)
				rows[i] = SampleRow{Date: SampleDate(at), Time: at, Metric: "jvm.memory.used", Value: float64(i * 4096), Unit: "By",
					Host: "node-1", AppID: "app-20261121000000-0001", ExecutorID: fmt.Sprint(i % 16), Role: "executor",
					Service: "sparkdx-agent", Attributes: map[string]string{"jvm.memory.pool.name": "G1 Old Gen", "jvm.memory.type": "heap"}}
			}
			if _, err := tbl.Append(ctx, rows, AppendOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		var size int64
		for _, a := range tbl.snap.files {
			size += a.Size
		}
		b.SetBytes(size)
		b.StartTimer()
		res, err := tbl.Optimize(ctx, OptimizeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rewritten, before, after = res.Rows, int64(res.FilesBefore), int64(res.FilesAfter)
	}
	b.ReportMetric(float64(rewritten)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(before), "files-before")
	b.ReportMetric(float64(after), "files-after")
}

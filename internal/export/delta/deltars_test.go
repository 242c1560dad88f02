package delta

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestDeltaRSReadsTables writes every table from real event logs, plus
// samples over two days in twelve commits (a checkpoint at version 10), on
// MinIO and in a directory, and has delta-rs read them: the same versions,
// protocol, partitioning, files, rows and values as sparkdx's own reading,
// partition pruning by date, time travel to the first append, and (local)
// the checkpoint read in place of the commits it replaces.
func TestDeltaRSReadsTables(t *testing.T) {
	sparktest.Live(t)

	t.Run("s3", func(t *testing.T) {
		m := sparktest.StartMinIO(t)
		client := m.Bucket(t, "lake")
		lake := writeLake(t, S3Locator(client, "lake", "sparkdx"))
		lake.dir = download(t, client, "lake", "sparkdx")
		read := deltaread.DeltaRS(t, minioOptions(m))
		compareReader(t, read, lake, read.Read("s3://lake/sparkdx", lakeTables, lake.firstVersion))
	})

	t.Run("local", func(t *testing.T) {
		lake := writeLake(t, nil)
		read := deltaread.DeltaRS(t, nil)
		compareReader(t, read, lake, read.Read(lake.dir, lakeTables, lake.firstVersion))
		checkpointAlone(t, read, lake)
	})
}

// checkpointAlone reads the samples table from its latest checkpoint
// alone, the commits it covers removed as another engine's log cleanup
// would: the reader reads the same, and sparkdx reopens and appends to it.
func checkpointAlone(t *testing.T, read deltaread.Reader, lake lake) {
	t.Helper()
	ctx := context.Background()
	dir, apps, day := lake.dir, lake.apps, lake.day
	own := checkTable(t, filepath.Join(dir, TableSamples))
	if len(own.Checkpoints) == 0 {
		t.Fatal("samples has no checkpoint")
	}
	cp := own.Checkpoints[len(own.Checkpoints)-1]
	who := read.Name
	cdir := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(filepath.Join(cdir, TableSamples), os.DirFS(filepath.Join(dir, TableSamples))); err != nil {
		t.Fatal(err)
	}
	for v := int64(0); v <= cp; v++ {
		if err := os.Remove(filepath.Join(cdir, TableSamples, "_delta_log", fmt.Sprintf("%020d.json", v))); err != nil {
			t.Fatal(err)
		}
	}
	reopened, err := OpenTables(ctx, DirLocator(cdir), Options{})
	if err != nil {
		t.Fatalf("sparkdx cannot reopen a table whose commits before its checkpoint are gone: %v", err)
	}
	copyView := read.Read(cdir, []string{TableSamples}, -1)[TableSamples]
	if copyView.Rows != own.Rows || copyView.Version != own.Version {
		t.Errorf("samples from checkpoint %d alone: %s sees version %d with %d rows, want %d with %d", cp, who, copyView.Version, copyView.Rows, own.Version, own.Rows)
	}
	more := []SampleRow{{Date: SampleDate(day), Time: day, Metric: "jvm.memory.used", Value: 1, Unit: "By", Host: "h",
		AppID: apps[0], ExecutorID: "9", Role: "executor", Service: "sparkdx-agent"}}
	if _, err := reopened.Samples.Append(ctx, more, AppendOptions{}); err != nil {
		t.Fatalf("append to the table read from its checkpoint: %v", err)
	}
	if v := read.Read(cdir, []string{TableSamples}, -1)[TableSamples]; v.Rows != own.Rows+1 || v.Version != own.Version+1 {
		t.Errorf("after sparkdx appended a row: %s sees version %d with %d rows, want %d with %d", who, v.Version, v.Rows, own.Version+1, own.Rows+1)
	}
}

// lake is every table written from real event logs, plus samples over two
// days in twelve commits (a checkpoint at version 10).
type lake struct {
	dir                      string
	apps                     []string // sorted
	day                      time.Time
	firstBatch, firstVersion int64 // rows and version of the first samples append
	valueSum                 float64
}

// writeLake writes the lake through loc (nil: a fresh directory, l.dir).
func writeLake(t *testing.T, loc Locator) lake {
	t.Helper()
	ctx := context.Background()
	l := lake{day: time.Date(2026, 11, 21, 23, 59, 0, 0, time.UTC)}
	if loc == nil {
		l.dir = t.TempDir()
		loc = DirLocator(l.dir)
	}
	red, _ := NewRedactor("")
	ts, err := OpenTables(ctx, loc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range realLogs[:3] {
		a := analyse(t, name)
		if _, err := ts.WriteApp(ctx, RowsOf(a.attempt, a.report, red, time.Now())); err != nil {
			t.Fatal(err)
		}
		l.apps = append(l.apps, a.report.App.ID)
	}
	slices.Sort(l.apps)
	for c := range 12 {
		var batch []SampleRow
		for i := range 5 + c {
			at := l.day.Add(time.Duration(c*10+i) * time.Second) // the last commits fall on the next day
			v := float64(c*100 + i)
			l.valueSum += v
			batch = append(batch, SampleRow{Date: SampleDate(at), Time: at, Metric: "jvm.memory.used", Value: v, Unit: "By",
				Host: "h", AppID: l.apps[c%len(l.apps)], ExecutorID: fmt.Sprint(i), Role: "executor", Service: "sparkdx-agent",
				Attributes: map[string]string{"jvm.memory.type": "heap"}})
		}
		if _, err := ts.Samples.Append(ctx, batch, AppendOptions{}); err != nil {
			t.Fatal(err)
		}
		if c == 0 {
			l.firstBatch, l.firstVersion = int64(len(batch)), ts.Samples.Version()
		}
	}
	return l
}

var lakeTables = TableNames()

// compareReader checks another engine's view of a lake against sparkdx's
// own reading of the same files (lake.dir).
func compareReader(t *testing.T, read deltaread.Reader, lake lake, views map[string]deltaread.View) {
	who := read.Name
	t.Helper()
	for _, name := range lakeTables {
		own := checkTable(t, filepath.Join(lake.dir, name))
		got := views[name]
		t.Logf("%s: %s reads version %d, %d rows in %d files, protocol %v, partitioned by %v", name, who, got.Version,
			got.Rows, got.Files, got.Protocol, got.PartitionColumns)
		if got.Version != own.Version || got.Rows != own.Rows || got.Files != len(own.Files) {
			t.Errorf("%s: %s sees version %d, %d rows in %d files; sparkdx wrote version %d, %d rows in %d files",
				name, who, got.Version, got.Rows, got.Files, own.Version, own.Rows, len(own.Files))
		}
		if len(got.Protocol) != 2 || got.Protocol[0] != own.MinReader || got.Protocol[1] != own.MinWriter {
			t.Errorf("%s: %s protocol %v, sparkdx wrote %d/%d", name, who, got.Protocol, own.MinReader, own.MinWriter)
		}
		if !slices.Equal(got.PartitionColumns, own.PartitionColumns) && len(got.PartitionColumns)+len(own.PartitionColumns) > 0 {
			t.Errorf("%s: %s partition columns %v, sparkdx %v", name, who, got.PartitionColumns, own.PartitionColumns)
		}
		if name != TableSamples && name != TableFindings && !slices.Equal(got.Apps, lake.apps) {
			t.Errorf("%s: %s app ids %v, want %v", name, who, got.Apps, lake.apps)
		}
	}
	s := views[TableSamples]
	if s.ValueSum != lake.valueSum {
		t.Errorf("samples: %s sums values to %v, want %v", who, s.ValueSum, lake.valueSum)
	}
	if s.RowsThen != lake.firstBatch {
		t.Errorf("samples: %s reads %d rows at version %d, want the first append's %d", who, s.RowsThen, lake.firstVersion, lake.firstBatch)
	}
	own := checkTable(t, filepath.Join(lake.dir, TableSamples))
	byDate := map[string]int{}
	for _, f := range own.Files {
		byDate[f.PartitionValues["date"]]++
	}
	if len(byDate) != 2 || fmt.Sprint(byDate) != fmt.Sprint(s.FilesByDate) {
		t.Errorf("samples: %s keeps files by date %v, want %v (two days)", who, s.FilesByDate, byDate)
	}
	if len(own.Checkpoints) == 0 {
		t.Errorf("samples: no checkpoint after %d commits", own.Version+1)
	}
}

package delta

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// deltaRSView is what testdata/deltars_read.py prints for one table.
type deltaRSView struct {
	Version          int64          `json:"version"`
	Protocol         []int          `json:"protocol"`
	PartitionColumns []string       `json:"partitionColumns"`
	Columns          []string       `json:"columns"`
	Files            int            `json:"files"`
	Rows             int64          `json:"rows"`
	Apps             []string       `json:"apps"`
	ValueSum         float64        `json:"valueSum"`
	FilesByDate      map[string]int `json:"filesByDate"`
	RowsThen         int64          `json:"rowsThen"` // samples at the version asked for
	Extra            map[string]any `json:"-"`
}

// readWithDeltaRS runs delta-rs over the tables under root.
func readWithDeltaRS(t *testing.T, py, root, storageOptions string, names []string, samplesThen int64) map[string]deltaRSView {
	t.Helper()
	script, err := filepath.Abs("testdata/deltars_read.py")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script, root, strings.Join(names, ","), fmt.Sprint(samplesThen))
	cmd.Env = append(os.Environ(), "DELTA_STORAGE_OPTIONS="+storageOptions)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("delta-rs refused the tables: %v\n%s", err, stderr.String())
	}
	var views map[string]deltaRSView
	if err := json.Unmarshal(out, &views); err != nil {
		t.Fatalf("delta-rs output: %v\n%s", err, out)
	}
	return views
}

// TestDeltaRSReadsTables writes every table from real event logs, plus
// samples over two days in twelve commits (a checkpoint at version 10), on
// MinIO and in a directory, and has delta-rs read them: the same versions,
// protocol, partitioning, files, rows and values as sparkdx's own reading,
// partition pruning by date, time travel to the first append, and (local)
// the checkpoint read in place of the commits it replaces.
func TestDeltaRSReadsTables(t *testing.T) {
	if testing.Short() {
		t.Skip("runs delta-rs")
	}
	py := sparktest.PythonEnv(t, "delta-rs")

	t.Run("s3", func(t *testing.T) {
		m := sparktest.StartMinIO(t)
		client := m.Bucket(t, "lake")
		lake := writeLake(t, S3Locator(client, "lake", "sparkdx"))
		lake.dir = download(t, client, "lake", "sparkdx")
		opts, err := json.Marshal(map[string]string{"AWS_ENDPOINT_URL": "http://" + m.Addr, "AWS_ACCESS_KEY_ID": m.AccessKey,
			"AWS_SECRET_ACCESS_KEY": m.SecretKey, "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"})
		if err != nil {
			t.Fatal(err)
		}
		compareDeltaRS(t, lake, readWithDeltaRS(t, py, "s3://lake/sparkdx", string(opts), lakeTables, lake.firstVersion))
	})

	t.Run("local", func(t *testing.T) {
		lake := writeLake(t, nil)
		compareDeltaRS(t, lake, readWithDeltaRS(t, py, lake.dir, "", lakeTables, lake.firstVersion))
		checkpointAlone(t, py, lake)
	})
}

// checkpointAlone reads the samples table from its latest checkpoint
// alone, the commits it covers removed as another engine's log cleanup
// would: delta-rs reads the same, and sparkdx reopens and appends to it.
func checkpointAlone(t *testing.T, py string, lake lake) {
	t.Helper()
	ctx := context.Background()
	dir, apps, day := lake.dir, lake.apps, lake.day
	own := checkTable(t, filepath.Join(dir, TableSamples))
	if len(own.Checkpoints) == 0 {
		t.Fatal("samples has no checkpoint")
	}
	cp := own.Checkpoints[len(own.Checkpoints)-1]
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
	copyView := readWithDeltaRSLatest(t, py, cdir)
	if copyView.Rows != own.Rows || copyView.Version != own.Version {
		t.Errorf("samples from checkpoint %d alone: delta-rs sees version %d with %d rows, want %d with %d", cp, copyView.Version, copyView.Rows, own.Version, own.Rows)
	}
	more := []SampleRow{{Date: SampleDate(day), Time: day, Metric: "jvm.memory.used", Value: 1, Unit: "By", Host: "h",
		AppID: apps[0], ExecutorID: "9", Role: "executor", Service: "sparkdx-agent"}}
	if _, err := reopened.Samples.Append(ctx, more, AppendOptions{}); err != nil {
		t.Fatalf("append to the table read from its checkpoint: %v", err)
	}
	if v := readWithDeltaRSLatest(t, py, cdir); v.Rows != own.Rows+1 || v.Version != own.Version+1 {
		t.Errorf("after sparkdx appended a row: delta-rs sees version %d with %d rows, want %d with %d", v.Version, v.Rows, own.Version+1, own.Rows+1)
	}
}

// readWithDeltaRSLatest reads only the latest state of root/samples (no
// time travel: the copy has no early versions).
func readWithDeltaRSLatest(t *testing.T, py, root string) deltaRSView {
	t.Helper()
	return readWithDeltaRS(t, py, root, "", []string{TableSamples}, -1)[TableSamples]
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

var lakeTables = []string{TableApps, TableJobs, TableStages, TableExecutors, TableFindings, TableSamples}

// compareDeltaRS checks delta-rs's view of a lake against sparkdx's own
// reading of the same files (lake.dir).
func compareDeltaRS(t *testing.T, lake lake, views map[string]deltaRSView) {
	t.Helper()
	for _, name := range lakeTables {
		own := checkTable(t, filepath.Join(lake.dir, name))
		got := views[name]
		if got.Version != own.Version || got.Rows != own.Rows || got.Files != len(own.Files) {
			t.Errorf("%s: delta-rs sees version %d, %d rows in %d files; sparkdx wrote version %d, %d rows in %d files",
				name, got.Version, got.Rows, got.Files, own.Version, own.Rows, len(own.Files))
		}
		if len(got.Protocol) != 2 || got.Protocol[0] != own.MinReader || got.Protocol[1] != own.MinWriter {
			t.Errorf("%s: delta-rs protocol %v, sparkdx wrote %d/%d", name, got.Protocol, own.MinReader, own.MinWriter)
		}
		if !slices.Equal(got.PartitionColumns, own.PartitionColumns) && len(got.PartitionColumns)+len(own.PartitionColumns) > 0 {
			t.Errorf("%s: delta-rs partition columns %v, sparkdx %v", name, got.PartitionColumns, own.PartitionColumns)
		}
		if name != TableSamples && name != TableFindings && !slices.Equal(got.Apps, lake.apps) {
			t.Errorf("%s: delta-rs app ids %v, want %v", name, got.Apps, lake.apps)
		}
	}
	s := views[TableSamples]
	if s.ValueSum != lake.valueSum {
		t.Errorf("samples: delta-rs sums values to %v, want %v", s.ValueSum, lake.valueSum)
	}
	if s.RowsThen != lake.firstBatch {
		t.Errorf("samples: delta-rs reads %d rows at version %d, want the first append's %d", s.RowsThen, lake.firstVersion, lake.firstBatch)
	}
	own := checkTable(t, filepath.Join(lake.dir, TableSamples))
	byDate := map[string]int{}
	for _, f := range own.Files {
		byDate[f.PartitionValues["date"]]++
	}
	if len(byDate) != 2 || fmt.Sprint(byDate) != fmt.Sprint(s.FilesByDate) {
		t.Errorf("samples: delta-rs keeps files by date %v, want %v (two days)", s.FilesByDate, byDate)
	}
	if len(own.Checkpoints) == 0 {
		t.Errorf("samples: no checkpoint after %d commits", own.Version+1)
	}
}

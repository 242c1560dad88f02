package delta

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestLiveMark(t *testing.T) {
	for _, c := range []struct{ newest, prev, want int64 }{
		{0, 0, 0},
		{1000, 0, 999},     // first sight: the newest millisecond waits
		{1000, 1000, 1000}, // seen at an earlier turn: complete
		{1500, 1000, 1499}, // a newer one read since
		{1000, 1200, 1000}, // prev from a longer log (never above newest)
	} {
		if got := LiveMark(c.newest, c.prev); got != c.want {
			t.Errorf("LiveMark(%d, %d): got %d, want %d", c.newest, c.prev, got, c.want)
		}
	}
}

// rowsOfPrefix replays the first n lines of a log, as serve sees a running
// application, and returns its rows.
func rowsOfPrefix(t *testing.T, lines [][]byte, n int) AppRows {
	t.Helper()
	a, _, err := replay.Read(context.Background(), bytes.NewReader(bytes.Join(lines[:n], []byte("\n"))), replay.Options{})
	if err != nil {
		t.Fatalf("line %d: %v", n, err)
	}
	red, err := NewRedactor("")
	if err != nil {
		t.Fatal(err)
	}
	r := reportv1.Build(a, analyze.Analyze(a), nil, reportv1.Log{Path: "prefix"})
	return RowsOf(a, r, red, time.Now())
}

// TestWriteLiveThenApp follows real logs line by line as a running driver
// writes them: at every job or stage end the ended rows go in (a restart,
// with its watermarks only from the tables, every third turn), then the
// application ends. Every job and stage attempt must be in the tables once.
func TestWriteLiveThenApp(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"local-1642039451826", "application_1553914137147_0018"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(sparktest.Path(t, "spark-events", name))
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
			dir := t.TempDir()
			open := func() *Tables {
				ts, err := OpenTables(ctx, DirLocator(dir), Options{CheckpointInterval: 3})
				if err != nil {
					t.Fatal(err)
				}
				return ts
			}
			ts := open()
			var prevJobs, prevStages int64
			var live LiveResult
			turns := 0
			for n := 1; n <= len(lines); n++ {
				if !bytes.Contains(lines[n-1], []byte(`"SparkListenerJobEnd"`)) && !bytes.Contains(lines[n-1], []byte(`"SparkListenerStageCompleted"`)) {
					continue
				}
				if turns++; turns%3 == 0 {
					ts, prevJobs, prevStages = open(), 0, 0
				}
				// Two turns on the same prefix: the second writes the
				// newest millisecond held back at the first.
				for range 2 {
					rows := rowsOfPrefix(t, lines, n)
					nj, ns := Newest(rows)
					res, err := ts.WriteLive(ctx, rows, LiveMark(nj, prevJobs), LiveMark(ns, prevStages))
					if err != nil {
						t.Fatal(err)
					}
					live.Jobs, live.Stages = live.Jobs+res.Jobs, live.Stages+res.Stages
					prevJobs, prevStages = nj, ns
				}
			}
			final := rowsOfPrefix(t, lines, len(lines))
			if live.Jobs == 0 || live.Stages == 0 {
				t.Fatalf("written while running: %+v, want jobs and stages", live)
			}
			if _, err := open().WriteApp(ctx, final); err != nil {
				t.Fatal(err)
			}
			// The app ended: a late live write adds nothing.
			if res, err := open().WriteLive(ctx, final, 1<<62, 1<<62); err != nil || res != (LiveResult{}) {
				t.Errorf("live write after the end: got %+v, %v, want nothing", res, err)
			}
			jobs := readRows[JobRow](t, filepath.Join(dir, TableJobs))
			stages := readRows[StageRow](t, filepath.Join(dir, TableStages))
			if got, want := keys(jobs, func(r JobRow) string { return fmt.Sprint(r.JobID, r.Status, r.CompletionTime) }),
				keys(final.Jobs, func(r JobRow) string { return fmt.Sprint(r.JobID, r.Status, r.CompletionTime) }); got != want {
				t.Errorf("jobs: got %s, want %s", got, want)
			}
			if got, want := keys(stages, func(r StageRow) string { return fmt.Sprint(r.StageID, ".", r.StageAttemptID, r.Status) }),
				keys(final.Stages, func(r StageRow) string { return fmt.Sprint(r.StageID, ".", r.StageAttemptID, r.Status) }); got != want {
				t.Errorf("stages: got %s, want %s", got, want)
			}
			t.Logf("%d jobs and %d stage attempts of %d and %d written while running", live.Jobs, live.Stages, len(final.Jobs), len(final.Stages))
		})
	}
}

// readRows reads every live data file of a table, as an outside reader
// does after deltacheck's replay of the log.
func readRows[T any](t *testing.T, root string) []T {
	t.Helper()
	var out []T
	for _, f := range checkTable(t, root).Files {
		rows, err := parquet.ReadFile[T](filepath.Join(root, f.Path))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		out = append(out, rows...)
	}
	return out
}

// keys is the sorted multiset of rows' keys, one line.
func keys[T any](rows []T, key func(T) string) string {
	ks := make([]string, 0, len(rows))
	for _, r := range rows {
		ks = append(ks, key(r))
	}
	slices.Sort(ks)
	return strings.Join(ks, "; ")
}

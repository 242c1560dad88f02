package exports

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// A running application's ended jobs reach the jobs table while its log is
// still .inprogress; when it ends, its remaining jobs are added and none
// twice.
func TestLiveJobsOfRunningApp(t *testing.T) {
	ctx := context.Background()
	logs, lake := t.TempDir(), t.TempDir()
	const app = "local-1642039451826"
	b, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	// The running part: up to the third job's end.
	var cut, ended int
	for cut = 0; cut < len(lines) && ended < 3; cut++ {
		if bytes.Contains(lines[cut], []byte(`"SparkListenerJobEnd"`)) {
			ended++
		}
	}
	running := filepath.Join(logs, app+".inprogress")
	if err := os.WriteFile(running, bytes.Join(lines[:cut], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	tables, err := delta.OpenTables(ctx, delta.DirLocator(lake), delta.Options{})
	if err != nil {
		t.Fatal(err)
	}
	red, st := redactorAndStore(t)
	x := New(st, slog.New(slog.DiscardHandler), Config{Tables: tables, Redactor: red, SamplesFlush: time.Hour, LiveEvery: 30 * time.Millisecond})
	in, err := ingest.New(ingest.Config{Roots: []string{logs}, Store: st, Poll: 20 * time.Millisecond,
		Analyze: server.AnalyzeFunc(st), Listener: x})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	go func() { in.Run(runCtx); done <- struct{}{} }()
	go func() { x.Run(runCtx, in, time.Hour); done <- struct{}{} }()
	defer func() { cancel(); <-done; <-done }()

	jobs := filepath.Join(lake, delta.TableJobs)
	waitFor(t, "the running app's 3 ended jobs", func() bool { return len(jobIDs(t, jobs)) == 3 })
	if tables.HasApp(app, "") {
		t.Fatal("the running app has an apps row")
	}
	if got, want := jobIDs(t, jobs), []int64{0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("while running: got jobs %v, want %v", got, want)
	}
	if err := os.WriteFile(filepath.Join(logs, app), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(running); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ended app's rows", func() bool { return tables.HasApp(app, "") })
	if got, want := jobIDs(t, jobs), []int64{0, 1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("after the end: got jobs %v, want %v", got, want)
	}
}

// redactorAndStore are the default redactor and a store closed with the
// test.
func redactorAndStore(t *testing.T) (*delta.Redactor, *store.Store) {
	t.Helper()
	red, err := delta.NewRedactor("")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return red, st
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not there in 20s", what)
		}
	}
}

// jobIDs reads the job ids in the jobs table, sorted, as an outside reader
// does.
func jobIDs(t *testing.T, root string) []int64 {
	t.Helper()
	tb, err := deltacheck.Check(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, f := range tb.Files {
		rows, err := parquet.ReadFile[delta.JobRow](filepath.Join(root, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			ids = append(ids, r.JobID)
		}
	}
	slices.Sort(ids)
	return ids
}

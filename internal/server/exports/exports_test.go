package exports

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/export/otlp"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// flakyStore is a table storage whose writes fail while broken is set.
type flakyStore struct {
	delta.Storage
	broken *atomic.Bool
}

func (f flakyStore) Put(ctx context.Context, key string, data []byte, exclusive bool) error {
	if f.broken.Load() {
		return errors.New("store unreachable")
	}
	return f.Storage.Put(ctx, key, data, exclusive)
}

// A finished application whose Delta write failed is written by the next
// retry, once the store answers again.
func TestRetryFailedWrite(t *testing.T) {
	ctx := context.Background()
	logs, lake := t.TempDir(), t.TempDir()
	const app = "local-1422981759269"
	b, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logs, app), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	loc := func(table string) delta.Storage {
		return flakyStore{Storage: delta.DirLocator(lake)(table), broken: &broken}
	}
	tables, err := delta.OpenTables(ctx, loc, delta.Options{})
	if err != nil {
		t.Fatal(err)
	}
	red, st := redactorAndStore(t)
	x := New(st, slog.New(slog.DiscardHandler), Config{})
	x.tables, x.red = tables, red
	broken.Store(true)
	in, err := ingest.New(ingest.Config{Roots: []string{logs}, Store: st, Poll: 20 * time.Millisecond,
		Analyze: server.AnalyzeFunc(st), Listener: x})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { in.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	for deadline := time.Now().Add(20 * time.Second); x.deltaErrors.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the failing write was not reported in 20s")
		}
	}
	if tables.HasApp(app, "") {
		t.Fatal("app written to a broken store")
	}
	broken.Store(false)
	x.retry(ctx, in, false)
	if !tables.HasApp(app, "") {
		t.Fatalf("after retry: app not written (%d failures)", x.deltaErrors.Load())
	}
	for _, name := range []string{delta.TableApps, delta.TableJobs, delta.TableStages} {
		tb, err := deltacheck.Check(os.DirFS(filepath.Join(lake, name)))
		if err != nil {
			t.Fatalf("table %s: %v", name, err)
		}
		if got := len(tb.Txns); got != 1 {
			t.Errorf("table %s: got %d app transactions, want 1", name, got)
		}
	}
}

// With the collector down, one failed export pauses the others (ingest is
// not held for a timeout per log); once it is up, retry sends each
// finished application's trace, once.
func TestCollectorDown(t *testing.T) {
	ctx := context.Background()
	logs := t.TempDir()
	apps := []string{"local-1422981759269", "local-1430917381534", "local-1425081759269", "app-20161116163331-0000",
		"app-20161115172038-0000", "local-1426533911241"}
	sparktest.CopyLogs(t, logs, apps...)
	addr := sparktest.FreeAddr(t) // nothing listens yet
	exp, err := otlp.New(ctx, otlp.Config{Endpoint: "http://" + addr, Protocol: otlp.ProtocolHTTP, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := New(st, slog.New(slog.DiscardHandler), Config{})
	x.otlp, x.otlpPause = exp, time.Hour
	const workers = 2
	in, err := ingest.New(ingest.Config{Roots: []string{logs}, Store: st, Poll: 20 * time.Millisecond, Workers: workers,
		Analyze: server.AnalyzeFunc(st), Listener: x})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { in.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	// A log is done once its model answers; its analysis is stored and
	// exported after that, so wait for every export to be tried too.
	tried := func() bool { return x.otlpErrors.Load()+x.otlpSkipped.Load() >= int64(len(apps)) }
	for deadline := time.Now().Add(60 * time.Second); in.Status().Done < len(apps) || !tried(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("ingest: got %+v and %d exports tried, want %d logs done and exported", in.Status(),
				x.otlpErrors.Load()+x.otlpSkipped.Load(), len(apps))
		}
	}
	failed, skipped := x.otlpErrors.Load(), x.otlpSkipped.Load()
	if failed < 1 || failed > workers || failed+skipped != int64(len(apps)) {
		t.Errorf("got %d failed and %d skipped exports, want 1 to %d failed and the rest of %d skipped", failed, skipped, workers, len(apps))
	}
	if len(x.unexported) != len(apps) {
		t.Errorf("got %d logs to export again, want %d", len(x.unexported), len(apps))
	}

	col := sparktest.StartCollector(t, sparktest.CollectorOptions{HTTPAddr: addr})
	x.otlpDown.Store(0) // the pause is over
	x.retry(ctx, in, false)
	if err := exp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	col.Stop(t)
	if len(x.unexported) != 0 {
		t.Errorf("after retry: %d logs still to export", len(x.unexported))
	}
	got := map[string]int{}
	for _, sp := range col.Spans(t) {
		if sp.Name == "spark.application" {
			got[sp.Attr("spark.app.id")]++
		}
	}
	for _, app := range apps {
		if got[app] != 1 {
			t.Errorf("%s: got %d application spans, want 1", app, got[app])
		}
	}
}

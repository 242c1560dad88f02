package main

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
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/sparktest"
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
// backfill, once the store answers again.
func TestServeExportsRetryFailedWrite(t *testing.T) {
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
	red, err := delta.NewRedactor("")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := &serveExports{st: st, logger: slog.New(slog.DiscardHandler), tables: tables, red: red, unsaved: map[string]bool{}}
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
	x.backfill(ctx, in, false)
	if !tables.HasApp(app, "") {
		t.Fatalf("after backfill: app not written (%d failures)", x.deltaErrors.Load())
	}
	for _, name := range []string{delta.TableApps, delta.TableJobs, delta.TableStages} {
		if got := len(checkTable(t, lake, name).Txns); got != 1 {
			t.Errorf("table %s: got %d app transactions, want 1", name, got)
		}
	}
}

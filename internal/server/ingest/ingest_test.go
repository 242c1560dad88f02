package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// run starts an ingester over roots and returns it with a stop function.
func run(t *testing.T, cfg Config) (*Ingester, func()) {
	t.Helper()
	if cfg.Store == nil {
		st, err := store.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		cfg.Store = st
	}
	if cfg.Poll == 0 {
		cfg.Poll = 20 * time.Millisecond
	}
	in, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { in.Run(ctx); close(done) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return in, stop
}

// copySharedLog copies the shared log spark-events/name into dir.
func copySharedLog(t *testing.T, dir, name string) {
	t.Helper()
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
		t.Fatal(err)
	}
}

func waitDone(t *testing.T, in *Ingester, n int) Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := in.Status()
		if st.Done >= n && st.QueueDepth == 0 && st.InFlight == 0 {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %+v, want %d logs done", st, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"no roots", Config{Store: &store.Store{}}},
		{"no store", Config{Roots: []string{"/tmp"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.cfg.Validate(); err == nil {
				t.Errorf("got nil, want an error")
			}
		})
	}
	c := Config{Roots: []string{"/tmp"}, Store: &store.Store{}}
	if err := c.Validate(); err != nil || c.Workers < 1 || c.Poll <= 0 || c.Analyze == nil || c.Redaction == nil {
		t.Errorf("defaults: got %+v, %v", c, err)
	}
}

// TestBackPressure: a queue of one still ingests 19 logs; the scanner
// waits (counted as deferred) instead of queueing more.
func TestBackPressure(t *testing.T) {
	in, _ := run(t, Config{Roots: []string{sparktest.Path(t, "spark-events")}, Queue: 1, Workers: 1})
	st := waitDone(t, in, 19)
	if st.Deferred == 0 {
		t.Errorf("got no deferred scans with a queue of 1: %+v", st)
	}
	if st.Errors != 0 || st.QueueCap != 1 {
		t.Errorf("got %+v, want no errors and capacity 1", st)
	}
}

// TestRestartReadsNothingDone: a second ingester on the same store reads
// no finished log again, and knows them all.
func TestRestartReadsNothingDone(t *testing.T) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	roots := []string{sparktest.Path(t, "spark-events")}
	in, stop := run(t, Config{Roots: roots, Store: st})
	first := waitDone(t, in, 19)
	stop()
	in2, _ := run(t, Config{Roots: roots, Store: st})
	if got := in2.Status(); got.Done != 19 {
		t.Errorf("before any scan: got %d logs done, want 19 from the store", got.Done)
	}
	second := waitDone(t, in2, 19)
	if second.Bytes != 0 || second.Processed != 0 {
		t.Errorf("restart read %d bytes in %d turns, want 0 (first run read %d)", second.Bytes, second.Processed, first.Bytes)
	}
}

// TestChangedLogIsReadAgain: a finished log that changes (size, mtime) is
// analysed again; one that disappears is forgotten, in the store too.
func TestChangedLogIsReadAgain(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1422981759269"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "local-1422981759269")
	if err := os.WriteFile(p, src[:len(src)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	in, _ := run(t, Config{Roots: []string{dir}})
	waitDone(t, in, 1)
	half := in.Records()[0]
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for in.Records()[0].Size != int64(len(src)) || !in.Records()[0].Done {
		if time.Now().After(deadline) {
			t.Fatalf("rewritten log not read again: %+v", in.Records()[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	full := in.Records()[0]
	if full.Events <= half.Events || !full.Completed {
		t.Errorf("got %d events (completed %v), want more than %d and completed", full.Events, full.Completed, half.Events)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); len(in.Records()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("deleted log still indexed: %+v", in.Records())
		}
	}
	if recs, _ := in.cfg.Store.Logs(); len(recs) != 0 {
		t.Errorf("deleted log still in the store: %+v", recs)
	}
}

// TestMissingRootKeepsIndex: a root that cannot be listed (an S3 outage,
// an unmounted volume) forgets nothing.
func TestMissingRootKeepsIndex(t *testing.T) {
	dir := t.TempDir()
	copySharedLog(t, dir, "local-1422981759269")
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in, stop := run(t, Config{Roots: []string{dir}, Store: st})
	waitDone(t, in, 1)
	stop()
	gone := filepath.Join(t.TempDir(), "unmounted")
	in2, _ := run(t, Config{Roots: []string{gone}, Store: st})
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	if st := in2.Status(); st.ScanErrors == 0 || st.Done != 1 {
		t.Errorf("got %+v, want scan errors and the one log kept", st)
	}
}

// TestNotSparkLogs: files that hold no application (garbage, an empty
// log) are indexed once, without an application, and not read again.
func TestNotSparkLogs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "local-1"), []byte("this is not json\n{\"also\": \"not spark\"}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "local-2"), nil, 0o644)
	in, _ := run(t, Config{Roots: []string{dir}})
	st := waitDone(t, in, 2)
	for _, r := range in.Records() {
		if r.AppID != "" || !r.Done {
			t.Errorf("got %+v, want done without an application", r)
		}
	}
	time.Sleep(100 * time.Millisecond) // several polls
	if again := in.Status(); again.Processed != st.Processed {
		t.Errorf("processed %d times after the first %d: want no re-reads", again.Processed, st.Processed)
	}
}

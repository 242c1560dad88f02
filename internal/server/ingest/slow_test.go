package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// stallingStore serves local files; reads of the log named stall wait
// until release is closed or their context ends, as a pathological log
// (a gzip of half a billion short lines) holds a replay for minutes.
type stallingStore struct {
	eventlog.FileStore
	stall   string
	release chan struct{}
}

func (s stallingStore) OpenRange(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	rc, err := s.FileStore.OpenRange(ctx, name, off)
	if err != nil || filepath.Base(name) != s.stall {
		return rc, err
	}
	return stalled{rc, ctx, s.release}, nil
}

func (s stallingStore) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return s.OpenRange(ctx, name, 0)
}

type stalled struct {
	io.ReadCloser
	ctx     context.Context
	release chan struct{}
}

func (r stalled) Read(p []byte) (int, error) {
	select {
	case <-r.release:
		return r.ReadCloser.Read(p)
	case <-r.ctx.Done():
		return 0, r.ctx.Err()
	}
}

// TestSlowLane: with one worker, a finished log whose replay outlasts
// SlowAfter is handed to the slow lane; every other log is analysed
// meanwhile, and the slow one completes there once it can be read.
func TestSlowLane(t *testing.T) {
	dir := t.TempDir()
	src := sparktest.Path(t, "spark-events")
	names := []string{"app-20161115172038-0000", "app-20161116163331-0000", "local-1422981759269", "local-1422981780767", "local-1425081759269"}
	// The stalled log sorts first, so the one worker meets it first.
	const stall = "app-00000000000000-0000"
	copies := map[string]string{stall: "local-1430917381534"}
	for _, n := range names {
		copies[n] = n
	}
	for dst, n := range copies {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	release := make(chan struct{})
	in, _ := run(t, Config{Roots: []string{dir}, Workers: 1, SlowAfter: 200 * time.Millisecond,
		Open: eventlog.OpenOptions{Store: stallingStore{stall: stall, release: release}}})

	deadline := time.Now().Add(30 * time.Second)
	for {
		st := in.Status()
		if st.Done == len(names) && st.SlowLane == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with one log stalled: got %+v, want the %d others done and one log in the slow lane", st, len(names))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, l := range in.Logs().Logs {
		if filepath.Base(l.Path) == stall && l.State == StateDone {
			t.Fatal("the stalled log is done before it could be read")
		}
	}
	close(release)
	waitDone(t, in, len(names)+1)
	for _, l := range in.Logs().Logs {
		if filepath.Base(l.Path) == stall && (l.State != StateDone || l.AppID != "local-1430917381534" || l.Events == 0) {
			t.Errorf("the slow log after release: %+v", l)
		}
	}
}

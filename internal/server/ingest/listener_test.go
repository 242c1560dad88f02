package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// recorder is a Listener that notes what it hears.
type recorder struct {
	mu        sync.Mutex
	progress  map[string][]int // app → jobs known at each Progress
	finished  map[string]int
	completed map[string]bool // the attempt was complete when Finished
	forgotten []string
	bad       []string
}

func newRecorder() *recorder {
	return &recorder{progress: map[string][]int{}, finished: map[string]int{}, completed: map[string]bool{}}
}

func (r *recorder) Progress(_ context.Context, in Input) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !in.InProgress {
		r.bad = append(r.bad, "progress of a log not in progress "+in.Attempt.AppID)
	}
	r.progress[in.Attempt.AppID] = append(r.progress[in.Attempt.AppID], len(in.Attempt.Jobs))
}

func (r *recorder) Finished(_ context.Context, in Input) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if in.Log.Path == "" || in.Now.IsZero() {
		r.bad = append(r.bad, "finished without log path or time "+in.Attempt.AppID)
	}
	if in.Result == nil || len(in.Result.Stages) != len(in.Attempt.Stages) {
		r.bad = append(r.bad, "finished without the analysis the report was built from "+in.Attempt.AppID)
	}
	r.finished[in.Attempt.AppID]++
	r.completed[in.Attempt.AppID] = in.Attempt.Completed
}

func (r *recorder) Forgotten(rec store.LogRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgotten = append(r.forgotten, rec.AppID)
}

func (r *recorder) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// The listener hears a tailed log's progress step by step, each finished
// log once, and a deleted log's going.
func TestListener(t *testing.T) {
	dir := t.TempDir()
	const tailed, static = "local-1422981759269", "local-1430917381534"
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", tailed))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sparktest.Path(t, "spark-events", static))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, static), b, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(src, []byte("\n")), []byte("\n"))
	inprogress := filepath.Join(dir, tailed+".inprogress")
	if err := os.WriteFile(inprogress, bytes.Join(lines[:len(lines)/3], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRecorder()
	run(t, Config{Roots: []string{dir}, Listener: r})
	r.wait(t, "the first progress and the static log finished", func() bool {
		return len(r.progress[tailed]) == 1 && r.finished[static] == 1
	})
	f, err := os.OpenFile(inprogress, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Join(lines[len(lines)/3:len(lines)-1], nil)) // all but the application end
	f.Close()
	r.wait(t, "a second progress", func() bool { return len(r.progress[tailed]) == 2 })
	// The application ends; Spark renames its log.
	f, err = os.OpenFile(inprogress, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(lines[len(lines)-1], '\n'))
	f.Close()
	if err := os.Rename(inprogress, filepath.Join(dir, tailed)); err != nil {
		t.Fatal(err)
	}
	r.wait(t, "the tailed log finished", func() bool { return r.finished[tailed] == 1 })
	if err := os.Remove(filepath.Join(dir, static)); err != nil {
		t.Fatal(err)
	}
	r.wait(t, "the deleted log forgotten", func() bool { return len(r.forgotten) == 1 })
	time.Sleep(100 * time.Millisecond) // a few more scans: nothing more is heard

	r.mu.Lock()
	defer r.mu.Unlock()
	// A third progress may come: the scan can see the end event appended
	// before the rename.
	if p := r.progress[tailed]; len(p) < 2 || p[0] >= p[1] || p[1] != 4 {
		t.Errorf("jobs at each progress: got %v, want two steps, growing, to all 4", p)
	}
	if len(r.progress[static]) != 0 {
		t.Errorf("finished log: got %d progress calls, want none", len(r.progress[static]))
	}
	if r.finished[tailed] != 1 || r.finished[static] != 1 || !r.completed[tailed] || !r.completed[static] {
		t.Errorf("finished: got %v (complete %v), want each app once, complete", r.finished, r.completed)
	}
	if len(r.forgotten) != 1 || r.forgotten[0] != static {
		t.Errorf("forgotten: got %v, want [%s]", r.forgotten, static)
	}
	if len(r.bad) > 0 {
		t.Errorf("bad calls: %v", r.bad)
	}
}

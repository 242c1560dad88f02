package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// runningLog is an application's log the test writes as Spark would,
// a piece at a time, into NAME.inprogress.
type runningLog struct {
	path    string // without .inprogress
	data    []byte
	written int
}

func (l *runningLog) append(t *testing.T, n int) {
	t.Helper()
	n = min(n, len(l.data)-l.written)
	f, err := os.OpenFile(l.path+".inprogress", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(l.data[l.written : l.written+n]); err != nil {
		t.Fatal(err)
	}
	l.written += n
}

// TestServeKill9Running kills `sparkdx serve` with SIGKILL while it tails
// applications that are still running, again and again. After each kill a
// copy of its store restarts and reads exactly the bytes past each log's
// stored resume point (nothing before it again); the serve that goes on
// on the store finishes every application with the results of a run that
// was never interrupted.
func TestServeKill9Running(t *testing.T) {
	bin := buildSparkdx(t)
	dir := t.TempDir()
	var logs []*runningLog
	for _, name := range []string{"local-1642039451826", "app-20200706201101-0003", "local-1430917381534"} {
		src, err := os.ReadFile(sparktest.Path(t, "spark-events", name))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			id := fmt.Sprintf("%s%03d", name, i)
			logs = append(logs, &runningLog{path: filepath.Join(dir, id), data: bytes.ReplaceAll(src, []byte(name), []byte(id))})
		}
	}
	writeFor := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(15 * time.Millisecond) {
			for _, l := range logs {
				l.append(t, 1500) // cuts lines, as Spark's buffered writer does
			}
		}
	}

	data := t.TempDir()
	resumes := 0
	for round := range 3 {
		p := startServe(t, bin, dir, data, "--resume-every", "100ms")
		writeFor(600 * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		p.cmd.Wait()

		unread, saved := resumeState(t, data, logs)
		resumes += saved
		check := startServe(t, bin, dir, copyDir(t, data))
		st := check.waitIdle(t)
		if got := int64(st["bytesRead"].(float64)); got != unread {
			t.Errorf("round %d: restart read %d bytes, want %d (what lies past the stored resume points)", round, got, unread)
		}
		if got := int(st["resumed"].(float64)); got != saved {
			t.Errorf("round %d: restart resumed %d logs, want the %d with a resume state", round, got, saved)
		}
		t.Logf("round %d: SIGKILL with %d of %d logs resumable; restart read %d bytes", round, saved, len(logs), unread)
		check.cmd.Process.Kill()
		check.cmd.Wait()
	}
	if resumes == 0 {
		t.Fatalf("no resume state was ever stored: the test tested nothing")
	}

	// The applications end: the rest is written and the files renamed.
	p := startServe(t, bin, dir, data, "--resume-every", "100ms")
	for _, l := range logs {
		l.append(t, len(l.data))
		if err := os.Rename(l.path+".inprogress", l.path); err != nil {
			t.Fatal(err)
		}
	}
	p.waitIdle(t)
	clean := startServe(t, bin, dir, t.TempDir())
	clean.waitIdle(t)
	got, want := appsDigest(t, p.get(t, "/api/sparkdx/v1/apps")), appsDigest(t, clean.get(t, "/api/sparkdx/v1/apps"))
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(logs) {
		t.Errorf("after the kills:\n%s\nan uninterrupted run:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, id := range []string{"local-1642039451826000", "app-20200706201101-0003001"} {
		path := "/api/sparkdx/v1/apps/" + id + "/report"
		if !bytes.Equal(p.get(t, path), clean.get(t, path)) {
			t.Errorf("%s differs from an uninterrupted run", path)
		}
	}
}

// resumeState reads a killed server's store: the bytes a restart must read
// (past each log's resume point, or all of a log without one) and the
// number of logs with a resume state.
func resumeState(t *testing.T, data string, logs []*runningLog) (unread int64, saved int) {
	t.Helper()
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Logs()
	if err != nil {
		t.Fatal(err)
	}
	offset := map[string]int64{}
	for _, r := range recs {
		if _, err := st.Tail(r.Key); err == nil {
			offset[r.Key] = r.Offset
			saved++
		} else if !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	for _, l := range logs {
		unread += int64(l.written) - offset[ingest.Key(l.path)]
	}
	return unread, saved
}

package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestTailReplacedLog: a running log replaced under the same name by
// another application's log — cut shorter, or longer with other first
// bytes — is read again from the start: the stored application is the new
// one, with the events of the new log only, and the old one is gone.
func TestTailReplacedLog(t *testing.T) {
	const appA, appB = "local-1430917381534", "app-20161115172038-0000"
	read := func(id string) [][]byte {
		b, err := os.ReadFile(sparktest.Path(t, "spark-events", id))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.SplitAfter(b, []byte("\n"))
	}
	linesA, linesB := read(appA), read(appB)
	events := func(lines [][]byte) int64 {
		n := int64(0)
		for _, ln := range lines {
			if len(bytes.TrimSpace(ln)) > 0 {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		name       string
		aFrac      int // tenths of A's log written first
		bFrac      int // tenths of B's log that replace it
		wantReason string
	}{
		{"cut shorter", 6, 3, "shorter"},
		{"grown longer", 3, 10, "first bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ts := startServer(t, t.TempDir(), "", dir)
			inprog := filepath.Join(dir, "driver-log.inprogress")
			write := func(lines [][]byte) {
				// Written aside and renamed in: the server sees either log whole.
				tmp := filepath.Join(t.TempDir(), "next")
				if err := os.WriteFile(tmp, bytes.Join(lines, nil), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, inprog); err != nil {
					t.Fatal(err)
				}
			}
			partA := linesA[:len(linesA)*c.aFrac/10]
			write(partA)
			waitFor(t, "app A tailed", func() (bool, string) {
				a, ok := appSummary(t, ts, appA)
				return ok && a.Events == events(partA), fmt.Sprintf("%+v", a)
			})
			partB := linesB[:len(linesB)*c.bFrac/10]
			write(partB)
			waitFor(t, "app B in place of A", func() (bool, string) {
				b, okB := appSummary(t, ts, appB)
				_, okA := appSummary(t, ts, appA)
				return okB && !okA && b.Events == events(partB), fmt.Sprintf("B %+v, A listed %v", b, okA)
			})
			if got := ts.in.Status().Replaced; got != 1 {
				t.Errorf("replaced counter: got %d, want 1", got)
			}
			// B finishes: its analysis is B's alone.
			write(linesB)
			if err := os.Rename(inprog, filepath.Join(dir, "driver-log")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "app B completed", func() (bool, string) {
				b, ok := appSummary(t, ts, appB)
				return ok && b.Status == "completed" && b.Events == events(linesB), fmt.Sprintf("%+v", b)
			})
			var jobs []struct{ JobID int }
			ts.getJSON(t, "/api/v1/applications/"+appB+"/jobs", &jobs)
			offline := offlineJobs(t, sparktest.Path(t, "spark-events", appB), appB)
			if len(jobs) != offline {
				t.Errorf("app B has %d jobs, the log %d", len(jobs), offline)
			}
			if code, _ := ts.get(t, "/api/v1/applications/"+appA); code != 404 {
				t.Errorf("app A still answers: %d", code)
			}
		})
	}
}

func offlineJobs(t *testing.T, path, app string) int {
	apps, err := replay.LoadApps(context.Background(), path, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		if a.ID == app {
			return len(a.Attempts[0].Jobs)
		}
	}
	t.Fatalf("%s: no app %s", path, app)
	return 0
}

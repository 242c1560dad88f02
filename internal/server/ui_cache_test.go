package server

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// TestFinishedPagesCachedUntilLogChanges: a finished application's
// drill-down pages come from the page cache, byte for byte the page
// rendered first, until its log changes: a log written again (the app
// renamed) shows its new content on every page at once.
func TestFinishedPagesCachedUntilLogChanges(t *testing.T) {
	const app = "local-1430917381534"
	orig, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, app)
	if err := os.WriteFile(log, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	pages := []string{"/jobs", "/jobs/0", "/stages/0/0", "/stages/0/0?sort=-runtime&length=10", "/stages/0/0/tasks/3",
		"/executors", "/environment", "/sql"}
	first := map[string][]byte{}
	for _, p := range pages {
		code, body := ts.get(t, "/apps/"+app+p)
		if code != 200 || !bytes.Contains(body, []byte("Spark shell")) {
			t.Fatalf("GET %s: %d", p, code)
		}
		first[p] = body
		if _, again := ts.get(t, "/apps/"+app+p); !bytes.Equal(again, body) {
			t.Errorf("GET %s twice: two different pages", p)
		}
	}
	renamed := bytes.ReplaceAll(orig, []byte(`"App Name":"Spark shell"`), []byte(`"App Name":"Spark shell, renamed"`))
	if err := os.WriteFile(log, renamed, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(log, later, later); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range pages {
		for {
			_, body := ts.get(t, "/apps/"+app+p)
			if bytes.Contains(body, []byte("Spark shell, renamed")) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: still the page of the log before it changed", p)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

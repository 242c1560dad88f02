package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
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

// TestPageCacheKeys: a junk parameter names the same cached page (issue
// 32, item 5: each junk value held a copy), a parameter the page reads
// another one.
func TestPageCacheKeys(t *testing.T) {
	const app = "local-1430917381534"
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	for i := range 20 {
		if code, _ := ts.get(t, fmt.Sprintf("/apps/%s/stages/0/0?junk=%d", app, i)); code != 200 {
			t.Fatalf("stage page: %d", code)
		}
		if code, _ := ts.get(t, fmt.Sprintf("/?junk=%d", i)); code != 200 {
			t.Fatalf("fleet page: %d", code)
		}
	}
	before, _ := ts.srv.cache.Size()
	ts.get(t, "/apps/"+app+"/stages/0/0?length=5")
	after, _ := ts.srv.cache.Size()
	if before > 2 || after != before+1 {
		t.Errorf("cache holds %d pages after 40 requests differing in a junk parameter (want 2), %d after one with a new length (want %d)",
			before, after, before+1)
	}
	if _, page := ts.get(t, "/?junk=0&status=completed&length=1"); bytes.Contains(page, []byte("junk")) {
		t.Error("the fleet page's links carry the junk parameter into cached pages")
	}
}

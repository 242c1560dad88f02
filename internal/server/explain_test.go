package server

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
)

// TestJobExplainedOnce serves the config-change scenario's four real runs
// judged so that the last three regress (any slower run regresses), with
// two runs explained per answer. The first answer replays and analyses
// two logs per explained run, four in all; the second, and the page
// after it, none, with the same causes; the oldest regressed run is
// listed unexplained. A changed log is explained again.
func TestJobExplainedOnce(t *testing.T) {
	ts := configChangeServerWith(t, func(ic *ingest.Config, sc *Config) {
		ic.Poll = 50 * time.Millisecond
		sc.Regression = regress.Config{Runs: 10, MinRuns: 1, Ratio: 1, Sigmas: 0, MinDeltaMs: 0}
		sc.ExplainRuns = 2
	})
	path := "/api/sparkdx/v1/jobs/" + url.PathEscape(configChangeJob)
	var first, second Job
	ts.getJSON(t, path, &first)
	if got := ts.srv.explainAnalyses.Load(); got != 4 {
		t.Errorf("first answer: got %d logs analysed, want 4 (two explained runs, two logs each)", got)
	}
	if len(first.Runs) != 4 || first.ExplainLimit != 2 {
		t.Fatalf("got %d runs, explain limit %d, want 4 and 2", len(first.Runs), first.ExplainLimit)
	}
	for i, want := range []struct{ regressed, unexplained bool }{{false, false}, {true, true}, {true, false}, {true, false}} {
		r := first.Runs[i]
		regressed := r.Verdict != nil && r.Verdict.Regressed
		if regressed != want.regressed || r.Unexplained != want.unexplained {
			t.Errorf("run %d (%d ms): regressed %v unexplained %v, want %v and %v", i, r.WallMs, regressed, r.Unexplained, want.regressed, want.unexplained)
		}
		if r.Unexplained && r.Causes != nil {
			t.Errorf("run %d: unexplained with causes %+v", i, r.Causes)
		}
	}
	if len(first.Runs[3].Causes) == 0 {
		t.Error("newest regressed run: no causes")
	}
	ts.getJSON(t, path, &second)
	if status, body := ts.get(t, "/jobs/"+url.PathEscape(configChangeJob)); status != 200 || !bytes.Contains(body, []byte("causes not computed")) {
		t.Errorf("job page: status %d, want 200 saying which causes were not computed", status)
	}
	if got := ts.srv.explainAnalyses.Load(); got != 4 {
		t.Errorf("second answer and page: got %d logs analysed in all, want still 4", got)
	}
	if !reflect.DeepEqual(first.Runs, second.Runs) {
		t.Errorf("second answer differs from the first:\n%+v\n%+v", second.Runs, first.Runs)
	}
	var newest string // the copy of the newest run's log
	for _, r := range ts.in.Records() {
		if r.Key == first.Runs[3].Log {
			newest = r.Path
		}
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(newest, later, later); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the changed log read again", func() (bool, string) {
		for _, r := range ts.in.Records() {
			if r.Key == first.Runs[3].Log {
				return r.Done && r.ModTime == later.UnixNano(), fmt.Sprintf("done %v, modified %d", r.Done, r.ModTime)
			}
		}
		return false, "no record"
	})
	ts.waitIdle(t)
	var third Job
	ts.getJSON(t, path, &third)
	if got := ts.srv.explainAnalyses.Load(); got != 6 {
		t.Errorf("after the newest log changed: got %d logs analysed in all, want 6 (its explanation again)", got)
	}
}

// TestExplainCacheBound fills the cache past its bound: it keeps the
// most recently used explanations, and a changed log version misses.
func TestExplainCacheBound(t *testing.T) {
	c := explainCache{max: 3}
	key := func(i int, mod int64) explainKey {
		return explainKey{run: logVersion{fmt.Sprint("run", i), mod}, base: logVersion{"base", 1}}
	}
	for i := range 3 {
		c.put(key(i, 1), []regress.Cause{{Kind: fmt.Sprint(i)}})
	}
	if _, ok := c.get(key(0, 1)); !ok { // 0 is now the most recently used
		t.Fatal("run0: not kept")
	}
	c.put(key(3, 1), nil)
	c.put(key(4, 1), nil)
	if got := c.len(); got != 3 {
		t.Errorf("got %d entries, want the bound 3", got)
	}
	for i, want := range []bool{true, false, false, true, true} {
		if _, ok := c.get(key(i, 1)); ok != want {
			t.Errorf("run%d: kept %v, want %v", i, ok, want)
		}
	}
	if _, ok := c.get(key(0, 2)); ok {
		t.Error("run0 at a new version: got a kept explanation, want none")
	}
}

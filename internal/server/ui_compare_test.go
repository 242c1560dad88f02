package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/web/ui"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// cliDiff is what `sparkdx diff BEFORE AFTER` computes for two logs: each
// replayed and diagnosed by the pipeline the CLI runs, then diff.Compare.
func cliDiff(t *testing.T, before, after string) *diff.Diff {
	t.Helper()
	var in [2]diff.Input
	for i, p := range []string{before, after} {
		logs, err := eventlog.Open(context.Background(), p, eventlog.OpenOptions{})
		if err != nil || len(logs) != 1 {
			t.Fatalf("%s: %d logs, %v", p, len(logs), err)
		}
		a, src, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := pipeline.Diagnose(a, nil, src, nil)
		in[i] = diff.Input{Report: d.Report, Result: d.Result}
	}
	return diff.Compare(in[0], in[1])
}

// TestComparePageMatchesDiff: the Compare page, reached by clicking from
// the fleet page and filled in as a person does, pairs the stages of a
// real log and of its copy whose code moved (one call site's line changed,
// the other's file) exactly as `sparkdx diff` pairs them, and says how each
// pair was matched — by name without line numbers, by operation in order —
// with the same durations and changes. A second comparison, served from
// the page cache, shows the same.
func TestComparePageMatchesDiff(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	const before, after = "local-1430917381534", "local-1430917381999"
	moved := sparktest.EditedLog(t, func(l string) (string, bool) {
		l = strings.ReplaceAll(l, before, after)
		l = strings.ReplaceAll(l, "map at <console>:26", "map at <console>:31")
		return strings.ReplaceAll(l, "collect at <console>:26", "collect at Job.scala:12"), true
	}, "spark-events", before)
	dir := t.TempDir()
	orig, err := os.ReadFile(sparktest.Path(t, "spark-events", before))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{before: orig, after: []byte(moved)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := cliDiff(t, filepath.Join(dir, before), filepath.Join(dir, after))
	kinds := map[string]bool{}
	for _, s := range want.Stages {
		kinds[s.Match] = true
	}
	if !kinds[diff.MatchNameNoLines] || !kinds[diff.MatchOperation] {
		t.Fatalf("sparkdx diff matched the moved code's stages %v; the test wants both fallbacks", kinds)
	}

	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	c := sparktest.StartPage(t, bin, 1280, 900)
	c.Navigate(ts.url + "/")
	c.Click(`header a[href="/compare"]`)
	for round := range 2 {
		c.Eval(fmt.Sprintf(`document.querySelector("input[name=a]").value = %q; document.querySelector("input[name=b]").value = %q; true`, before, after))
		c.Click(`form.filters button[type=submit]`)
		if got := c.EvalString(`location.pathname + location.search`); got != "/compare?a="+before+"&b="+after {
			t.Fatalf("round %d: the form led to %s", round, got)
		}
		if got := c.EvalString(`document.querySelector("#stage-pairs").previousElementSibling.textContent`); got != want.Matching {
			t.Errorf("round %d: matching described as %q, sparkdx diff says %q", round, got, want.Matching)
		}
		rows := c.EvalInt(`document.querySelectorAll("#stage-pairs tbody tr").length`)
		if rows != len(want.Stages) {
			t.Fatalf("round %d: %d stage rows, sparkdx diff has %d", round, rows, len(want.Stages))
		}
		for i, s := range want.Stages {
			cell := func(n int) string {
				return c.EvalString(fmt.Sprintf(`document.querySelector("#stage-pairs tbody tr:nth-child(%d) td:nth-child(%d)").textContent`, i+1, n))
			}
			side := func(x *diff.StageSide) (string, string) {
				if x == nil {
					return "—", "—"
				}
				var ids strings.Builder
				for _, id := range x.StageIDs {
					fmt.Fprintf(&ids, "%d ", id)
				}
				return ids.String() + x.Name, ui.Duration(x.DurationMs)
			}
			bName, bDur := side(s.Before)
			aName, aDur := side(s.After)
			match := s.Match
			if match == "" {
				match = s.Status
			}
			sdur := ui.Funcs()["sdur"].(func(int64) string)
			for n, w := range map[int]string{1: bName, 2: aName, 3: match, 4: bDur, 5: aDur, 6: sdur(s.DeltaMs)} {
				if got := cell(n); got != w {
					t.Errorf("round %d: stage row %d column %d: %q, sparkdx diff says %q", round, i+1, n, got, w)
				}
			}
		}
		c.Screenshot(fmt.Sprintf("compare-moved-code-%d", round))
		c.CheckFits("compare page", 1280)
	}
	// The API answers the same document.
	var api diff.Diff
	ts.getJSON(t, "/api/sparkdx/v1/diff?a="+before+"&b="+after, &api)
	for i, s := range api.Stages {
		if w := want.Stages[i]; s.Match != w.Match || s.Status != w.Status || s.DeltaMs != w.DeltaMs {
			t.Errorf("API stage %d: %s/%s %d ms, sparkdx diff: %s/%s %d ms", i, s.Status, s.Match, s.DeltaMs, w.Status, w.Match, w.DeltaMs)
		}
	}
}

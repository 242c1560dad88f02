package server

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/profile"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// profiledServer serves the real log of app with a profile directory
// where the test files internal/jfr's recording of Work.java (stages 1
// and 2) as the agent would.
func profiledServer(t *testing.T, app string) (*testServer, profileDir) {
	t.Helper()
	logs := t.TempDir()
	if err := os.Symlink(sparktest.Path(t, "spark-events", app), filepath.Join(logs, app)); err != nil {
		t.Fatal(err)
	}
	d := profileDir{t: t, dir: t.TempDir(), app: app}
	var err error
	if d.data, err = os.ReadFile("../profile/testdata/work.cpu.collapsed"); err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, t.TempDir(), []string{logs}, func(ic *ingest.Config, sc *Config) {
		ic.Poll = 50 * time.Millisecond
		sc.Profiles = d.dir
	})
	ts.waitIdle(t)
	return ts, d
}

type profileDir struct {
	t        *testing.T
	dir, app string
	data     []byte // collapsed stacks
}

// collapsed files the recording as the agent's collapsed file of
// executor exec.
func (d profileDir) collapsed(exec string) {
	d.t.Helper()
	if err := os.WriteFile(filepath.Join(d.dir, d.app+"-"+exec+"-pid42-20200706T201101Z.cpu.collapsed"), d.data, 0o644); err != nil {
		d.t.Fatal(err)
	}
}

// pprof files it as the agent's pprof file of executor exec, labelled
// with the application and executor.
func (d profileDir) pprof(exec string) {
	d.t.Helper()
	p := &profile.Profile{Kind: profile.CPU, Labels: []profile.Label{{Key: "app_id", Value: d.app}, {Key: "executor_id", Value: exec}}}
	if err := profile.ReadCollapsed(p, bytes.NewReader(d.data), "work.cpu.collapsed"); err != nil {
		d.t.Fatal(err)
	}
	var b bytes.Buffer
	if err := profile.WritePprof(&b, p); err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.dir, d.app+"-"+exec+"-pid42-20200706T201101Z.cpu.pb.gz"), b.Bytes(), 0o644); err != nil {
		d.t.Fatal(err)
	}
}

// TestAppPageFlameGraphs: with Profiles set, an application's page draws
// the flame graphs of the profiles filed under its id (internal/jfr's
// real recording of Work.java under a real log's id: stages 1 and 2)
// with the script served from this origin, under the pages' Content-
// Security-Policy, which allows no inline script; Chromium draws every
// graph and stage 1's holds Work.spin.
func TestAppPageFlameGraphs(t *testing.T) {
	const app = "app-20200706201101-0003"
	ts, dir := profiledServer(t, app)
	dir.collapsed("driver")
	code, page := ts.get(t, "/apps/"+app)
	if code != 200 || strings.Count(string(page), `<div class="flame" data-flame=`) != 3 || !strings.Contains(string(page), `<script src="/static/flame.js">`) {
		t.Fatalf("app page: got %d with %d flame graphs, want 200 with 3 (the application's, stages 1 and 2) and the script",
			code, strings.Count(string(page), `<div class="flame"`))
	}
	if code, js := ts.get(t, "/static/flame.js"); code != 200 || !strings.Contains(string(js), "function sdxFlame(") {
		t.Fatalf("/static/flame.js: got %d %.60q, want the script", code, js)
	}

	c := sparktest.StartPage(t, sparktest.Program(t, "chromium"), 1280, 900)
	c.Navigate(ts.url + "/apps/" + app)
	drawn := c.EvalString(`Array.from(document.querySelectorAll(".flame")).map((b) => b.querySelectorAll(".fg-f").length >= 3).join(",")`)
	spin := c.EvalInt(`Array.from(document.querySelectorAll("details.flame-stage")).filter((d) =>
		d.querySelector("summary").textContent.startsWith("stage 1:") &&
		Array.from(d.querySelectorAll(".fg-f")).some((e) => e.textContent === "Work.spin")).length`)
	if drawn != "true,true,true" || spin != 1 {
		t.Errorf("got graphs drawn %q and %d stage 1 graphs with Work.spin, want true,true,true and 1", drawn, spin)
	}
	c.CheckClean("app page with flame graphs")
}

// TestStageAndExecutorPageFlameGraphs: a stage's page draws the samples
// of its tasks on every executor profiled, and the executors page one
// graph per executor (executor 0's from its collapsed file's name, the
// driver's from its pprof file's labels, its collapsed twin left out);
// both under the same script and
// Content-Security-Policy as the app page. A profile filed after a
// finished page was cached shows on the next visit (the cache key has
// the files).
func TestStageAndExecutorPageFlameGraphs(t *testing.T) {
	const app = "app-20200706201101-0003"
	ts, dir := profiledServer(t, app)
	dir.collapsed("0")
	stage1 := func() string {
		t.Helper()
		code, page := ts.get(t, "/apps/"+app+"/stages/1/0")
		if code != 200 || strings.Count(string(page), `<div class="flame" data-flame=`) != 1 || !strings.Contains(string(page), `<script src="/static/flame.js">`) {
			t.Fatalf("stage page: got %d with %d flame graphs, want 200 with 1 and the script", code, strings.Count(string(page), `<div class="flame"`))
		}
		return string(page)
	}
	// work.cpu.collapsed has 355 samples of stage 1.
	if page := stage1(); !strings.Contains(page, "355 CPU samples of this stage's tasks on executors 0 ") {
		t.Errorf("stage page with one file: want 355 samples on executor 0")
	}
	dir.pprof("driver")
	dir.collapsed("driver") // the same recording: counted once
	if page := stage1(); !strings.Contains(page, "710 CPU samples of this stage's tasks on executors 0, driver ") {
		t.Errorf("stage page after the driver's pprof file: want 710 samples on executors 0 and driver (a stale cached page?)")
	}
	code, page := ts.get(t, "/apps/"+app+"/executors")
	if code != 200 || strings.Count(string(page), `<div class="flame" data-flame=`) != 2 {
		t.Fatalf("executors page: got %d with %d flame graphs, want 200 with 2", code, strings.Count(string(page), `<div class="flame"`))
	}

	c := sparktest.StartPage(t, sparktest.Program(t, "chromium"), 1280, 900)
	c.Navigate(ts.url + "/apps/" + app + "/stages/1/0")
	spin := c.EvalInt(`Array.from(document.querySelectorAll(".flame .fg-f")).filter((e) => e.textContent === "Work.spin").length`)
	other := c.EvalInt(`Array.from(document.querySelectorAll(".flame .fg-f")).filter((e) => e.textContent.startsWith("stage 2") || e.textContent === "Work.allocate").length`)
	if spin < 1 || other != 0 {
		t.Errorf("stage 1's graph: got %d Work.spin and %d frames of stage 2, want Work.spin and none of stage 2", spin, other)
	}
	c.CheckClean("stage page with a flame graph")
	c.Navigate(ts.url + "/apps/" + app + "/executors")
	drawn := c.EvalString(`Array.from(document.querySelectorAll("details.flame-exec")).map((d) => d.id + ":" +
		Array.from(d.querySelectorAll(".fg-f")).some((e) => e.textContent === "stage 1") + "/" +
		Array.from(d.querySelectorAll(".fg-f")).some((e) => e.textContent === "stage 2")).join(",")`)
	if drawn != "flame-exec-0:true/true,flame-exec-driver:true/true" {
		t.Errorf("executors page: got %q, want executors 0 and driver each drawn with stages 1 and 2 side by side", drawn)
	}
	c.CheckClean("executors page with flame graphs")
}

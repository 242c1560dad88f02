package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestAppPageFlameGraphs: with Profiles set, an application's page draws
// the flame graphs of the profiles filed under its id (internal/jfr's
// real recording of Work.java under a real log's id: stages 1 and 2)
// with the script served from this origin, under the pages' Content-
// Security-Policy, which allows no inline script; Chromium draws every
// graph and stage 1's holds Work.spin.
func TestAppPageFlameGraphs(t *testing.T) {
	const app = "app-20200706201101-0003"
	logs := t.TempDir()
	if err := os.Symlink(sparktest.Path(t, "spark-events", app), filepath.Join(logs, app)); err != nil {
		t.Fatal(err)
	}
	profiles := t.TempDir()
	data, err := os.ReadFile("../profile/testdata/work.cpu.collapsed")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(profiles, app+"-driver-pid42-20200706T201101Z.cpu.collapsed"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, t.TempDir(), []string{logs}, func(ic *ingest.Config, sc *Config) {
		ic.Poll = 50 * time.Millisecond
		sc.Profiles = profiles
	})
	ts.waitIdle(t)
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

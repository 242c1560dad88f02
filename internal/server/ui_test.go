package server

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestUIChromium loads every page in headless Chromium: no console
// errors, failed loads or script dialogs (the XSS app's name must not
// run), links navigate, and a running app's page updates itself as its
// log grows.
func TestUIChromium(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	events := sparktest.Path(t, "spark-events")
	data, err := os.ReadFile(filepath.Join(events, tailApp))
	if err != nil {
		t.Fatal(err)
	}
	// The running copy gets its own app id: spark-events holds the original.
	const runID = "local-2000000000001"
	data = bytes.ReplaceAll(data, []byte(tailApp), []byte(runID))
	lines := bytes.SplitAfter(data, []byte("\n"))
	live := t.TempDir()
	inprog := filepath.Join(live, runID+".inprogress")
	half := len(lines) / 3
	if err := os.WriteFile(inprog, bytes.Join(lines[:half], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", events, live)
	ts.waitIdle(t)
	c := sparktest.StartPage(t, bin, 1400, 1000)

	c.Navigate(ts.url + "/")
	c.Screenshot("fleet")
	if n := c.EvalInt(`document.querySelectorAll("#apps tbody tr").length`); n != 20 {
		t.Errorf("fleet: got %d rows, want 20 (19 attempts in spark-events + 1 running)", n)
	}
	if got := c.EvalString(`document.querySelector('tr[data-app="local-1766844910796"] a').textContent`); got != "<script>alert('XSS')</script>" {
		t.Errorf("fleet: XSS app name shown as %q, want the literal text", got)
	}
	if got := c.EvalString(`document.body.dataset.live`); got != "1" {
		t.Errorf("fleet with a running app: data-live %q, want 1", got)
	}
	c.CheckClean("fleet")

	// Filter by status through the form.
	c.Eval(`document.querySelector('select[name=status]').value = "running"; document.querySelector("form.filters").submit(); true`)
	c.WaitLoad()
	if n := c.EvalInt(`document.querySelectorAll("#apps tbody tr").length`); n != 1 {
		t.Errorf("status=running: got %d rows, want 1", n)
	}
	c.CheckClean("fleet filtered")

	// Agent samples for one app, then navigate to it by clicking its link.
	agentPush(t, ts.url, "app-20200706201101-0003", []string{"driver", "0"}, time.UnixMilli(1594091461000), 12)
	c.Navigate(ts.url + "/")
	c.Eval(`document.querySelector('a[href="/apps/app-20200706201101-0003"]').click(); true`)
	c.WaitLoad()
	if p := c.EvalString(`location.pathname`); p != "/apps/app-20200706201101-0003" {
		t.Errorf("after clicking: at %s", p)
	}
	for _, id := range []string{"gantt", "heatmap", "stages", "executors", "sql", "memory"} {
		if c.EvalInt(`document.querySelectorAll("#`+id+`").length`) != 1 {
			t.Errorf("app page: no #%s", id)
		}
	}
	// Info findings sit collapsed under one line (the finding budget).
	if n := c.EvalInt(`document.querySelectorAll("#info-findings .finding").length`); n < 1 {
		t.Errorf("app page: %d info findings under #info-findings, want the app's (2)", n)
	}
	if n := c.EvalInt(`Array.from(document.querySelectorAll("#info-findings .finding")).filter(function (e) { return e.checkVisibility(); }).length`); n != 0 {
		t.Errorf("app page: %d info findings shown, want them collapsed", n)
	}
	if n := c.EvalInt(`document.querySelectorAll(".evidence").length`); n != 0 {
		t.Errorf("app page: %d raw evidence blocks, want none (the raw fields are the JSON report's)", n)
	}
	if n := c.EvalInt(`document.querySelectorAll("svg.agent").length`); n != 4 {
		t.Errorf("app page: %d agent charts, want 4 (heap, GC, classes, Python RSS)", n)
	}
	if n := c.EvalInt(`document.querySelectorAll("svg.agent polyline").length`); n != 8 {
		t.Errorf("app page: %d agent lines, want 8 (4 charts x 2 executors)", n)
	}
	if n := c.EvalInt(`document.querySelectorAll("#gantt rect").length`); n < 4 {
		t.Errorf("app page: gantt has %d bars, want the phase lane and 3 stages", n)
	}
	c.Screenshot("app")
	c.CheckClean("app page")

	c.Navigate(ts.url + "/apps/local-1766844910796")
	if got := c.EvalString(`document.querySelector("h1").textContent`); got != "<script>alert('XSS')</script>" {
		t.Errorf("XSS app page h1: got %q", got)
	}
	c.CheckClean("XSS app page")

	c.Navigate(ts.url + "/compare?a=local-1422981759269&b=application_1628109047826_1317105")
	if c.EvalInt(`document.querySelectorAll("#compare tr").length`) < 5 {
		t.Errorf("compare: no comparison table")
	}
	c.Screenshot("compare")
	c.CheckClean("compare")
	// A log and its copy shifted in time: every stage pairs with its twin by
	// name, as sparkdx diff pairs them.
	c.Navigate(ts.url + "/compare?a=local-1422981759269&b=local-1425081759269")
	rows := c.EvalInt(`document.querySelectorAll("#stage-pairs tbody tr").length`)
	byName := c.EvalInt(`[...document.querySelectorAll("#stage-pairs tbody tr td:nth-child(3)")].filter(td => td.textContent == "name").length`)
	if rows == 0 || byName != rows {
		t.Errorf("compare of shifted copies: %d of %d stage rows matched by name, want all", byName, rows)
	}
	c.CheckClean("compare shifted copies")

	// The running app's page refreshes itself as the log grows.
	c.Navigate(ts.url + "/apps/" + runID)
	if got := c.EvalString(`document.body.dataset.live`); got != "1" {
		t.Fatalf("running app page: data-live %q, want 1", got)
	}
	// "48 launched": the headline's task attempts (report.Figures).
	before, _ := strconv.Atoi(strings.Fields(c.EvalString(`document.querySelector("#task-count").textContent`) + " 0")[0])
	f, err := os.OpenFile(inprog, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range lines[half:] {
		f.Write(ln)
	}
	f.Close()
	deadline := time.Now().Add(20 * time.Second)
	after := before
	for time.Now().Before(deadline) && after <= before {
		time.Sleep(200 * time.Millisecond)
		after, _ = strconv.Atoi(strings.Fields(c.EvalString(`document.querySelector("#task-count").textContent`) + " 0")[0])
	}
	if after <= before {
		t.Errorf("running app page: task count stayed %d", before)
	}
	if c.EvalString(`document.body.dataset.refreshed || ""`) == "" {
		t.Errorf("running app page changed without the live refresh")
	}
	c.Screenshot("running")
	c.CheckClean("running app page")
	t.Logf("running app page: tasks %d -> %d without reload", before, after)
}

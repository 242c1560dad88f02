package server

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRunsChromium walks fleet → runs → a run → one of its applications →
// back to its run by clicking links, in headless Chromium at 1280 px: no
// console error, no horizontal overflow, the per-process-type table as the
// API gives it, and a hostile run name shown as text on every page.
func TestRunsChromium(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	ts := startServer(t, t.TempDir(), "", runLogs(t))
	ts.waitIdle(t)
	runSamples(t, ts.url, time.UnixMilli(1594091461000))
	c := sparktest.StartPage(t, bin, 1280, 900)
	// The hostile run's row, found without putting its id in a selector.
	xssRow := fmt.Sprintf(`[...document.querySelectorAll("#runs tbody tr")].find(r => r.dataset.run === %q)`, xssRun)

	c.Navigate(ts.url + "/")
	if got := c.EvalString(`document.querySelector('tr[data-app="` + runAppXSS + `"] a.run-link').textContent`); got != xssRun {
		t.Errorf("fleet: the app's run shown as %q, want the literal text", got)
	}
	c.CheckFits("fleet", 1280)
	c.Click(`#runs-link`)
	if p := c.EvalString(`location.pathname`); p != "/runs" {
		t.Fatalf("fleet's runs link led to %s", p)
	}
	if n := c.EvalInt(`document.querySelectorAll("#runs tbody tr").length`); n != 2 {
		t.Errorf("runs page: %d rows, want 2", n)
	}
	if got := c.EvalString(xssRow + `.querySelector("a.run-link").textContent`); got != xssRun {
		t.Errorf("runs page: hostile run name shown as %q", got)
	}
	c.Screenshot("runs")
	c.CheckFits("runs page", 1280)

	// The hostile run's page: its name is text, its id one path segment.
	c.Eval(xssRow + `.querySelector("a.run-link").click(); true`)
	c.WaitLoad()
	if got := c.EvalString(`document.querySelector("h1").textContent`); got != xssRun {
		t.Errorf("hostile run page h1: got %q", got)
	}
	if n := c.EvalInt(`document.querySelectorAll("#run-apps tbody tr").length`); n != 1 {
		t.Errorf("hostile run page: %d applications, want 1", n)
	}
	c.CheckFits("hostile run page", 1280)

	c.Navigate(ts.url + "/runs")
	c.Click(`tr[data-run="` + dagRun + `"] a.run-link`)
	if got := c.EvalString(`location.pathname`); got != "/runs/"+url.PathEscape(dagRun) {
		t.Errorf("DAG run link led to %s", got)
	}
	if got := c.EvalString(`document.querySelector("h1").textContent`); got != dagRunName {
		t.Errorf("DAG run page h1: got %q, want %q", got, dagRunName)
	}
	if n := c.EvalInt(`document.querySelectorAll("#run-apps tbody tr").length`); n != 2 {
		t.Errorf("DAG run page: %d applications, want 2", n)
	}
	types := c.EvalString(`[...document.querySelectorAll("#run-processes tbody tr")].map(r => r.dataset.type + "=" + r.querySelector("td.cpu").textContent + "/" + r.querySelector("td.rss").textContent).join(" ")`)
	if want := "driver=0.40/700.0 MiB executor=3.50/1.1 GiB python=0.90/420.0 MiB launcher=0.05/80.0 MiB"; types != want {
		t.Errorf("process table: got %q, want %q", types, want)
	}
	c.Screenshot("run")
	c.CheckFits("DAG run page", 1280)

	// One of its applications names the run and its task; back by the link.
	c.Click(`tr[data-app="` + runAppB + `"] a.app-link`)
	if got := c.EvalString(`location.pathname`); got != "/apps/"+runAppB {
		t.Fatalf("the run's app link led to %s", got)
	}
	if got := c.EvalString(`document.querySelector("#run-link").parentElement.textContent`); !strings.Contains(got, "run "+dagRunName) ||
		!strings.Contains(got, "task etl_daily.report") {
		t.Errorf("app page: %q, want its run and task named", got)
	}
	c.CheckFits("app page", 1280)
	c.Click(`#run-link`)
	if got := c.EvalString(`document.querySelector("#run-id").textContent`); got != dagRun {
		t.Errorf("the app page's run link led to run %q", got)
	}
	c.CheckFits("run page again", 1280)
}

package server

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/web/ui"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const configChangeJob = "scenario-config-change by root"

// TestJobPageValues holds the job page's table to the job API: every
// run's row, newest first, shows the API's wall time, core time, cost and
// verdict, and links to its app and to its comparison with the baseline's
// median run; the regressed run lists the API's causes.
func TestJobPageValues(t *testing.T) {
	ts := configChangeServer(t, cost.PriceList{})
	var job Job
	ts.getJSON(t, "/api/sparkdx/v1/jobs/"+url.PathEscape(configChangeJob), &job)
	status, body := ts.get(t, "/jobs/"+url.PathEscape(configChangeJob))
	if status != 200 {
		t.Fatalf("job page: status %d", status)
	}
	rows := tableRows(t, body, "job-runs")
	if len(rows) != len(job.Runs) || len(rows) != 4 {
		t.Fatalf("job page: %d rows, API %d runs, want 4 each", len(rows), len(job.Runs))
	}
	cols := []struct {
		class string
		want  func(r JobRun) string
	}{
		{"status", func(r JobRun) string { return r.Status }},
		{"wall", func(r JobRun) string { return ui.Duration(r.WallMs) }},
		{"core", func(r JobRun) string { return fmt.Sprintf("%.1f", float64(r.CoreMs)/1000) }},
		{"cost", func(r JobRun) string { return r.Cost.String() }},
		{"verdict", verdictWant},
		{"app-link@href", func(r JobRun) string { return "/apps/" + url.PathEscape(r.AppID) }},
		{"compare-link@href", func(r JobRun) string {
			if r.Baseline == nil {
				return ""
			}
			return "/compare?a=" + url.QueryEscape(r.Baseline.MedianRun) + "&b=" + url.QueryEscape(r.AppID)
		}},
	}
	for i, row := range rows {
		run := job.Runs[len(job.Runs)-1-i] // the page lists newest first
		if row["data-app"] != run.AppID {
			t.Fatalf("row %d: app %q, want %q (newest first)", i, row["data-app"], run.AppID)
		}
		for _, c := range cols {
			t.Run(fmt.Sprintf("%s/%s", run.AppID, c.class), func(t *testing.T) {
				if got, want := row[c.class], c.want(run); got != want {
					t.Errorf("got %q, want %q", got, want)
				}
			})
		}
		if run.Cost.CoreHours <= 0 {
			t.Errorf("run %s: no core-hours in its cost", run.AppID)
		}
	}
	regressed := rows[0]
	if job.Runs[0].Status != "succeeded" {
		t.Errorf("oldest run: status %q, want succeeded", job.Runs[0].Status)
	}
	if !strings.HasPrefix(regressed["verdict"], "regressed") || !strings.Contains(regressed["verdict"], regress.CauseStages) {
		t.Errorf("newest run's verdict %q: want regressed with %s among its causes", regressed["verdict"], regress.CauseStages)
	}
}

// verdictWant is what the page says of a run: the verdict, then each
// cause's kind and detail.
func verdictWant(r JobRun) string {
	v := r.Verdict
	if v == nil {
		return "no baseline yet"
	}
	s := fmt.Sprintf("%.2f× the median (%.1f deviations)", v.Ratio, v.Sigmas)
	if v.Regressed {
		s = "regressed " + s
	}
	for _, c := range r.Causes {
		s += c.Kind + " " + c.Detail
	}
	return s
}

// tableRows reads a table's body rows: each row's data-app, each cell's
// text by its class, and each link's href as "class@href".
func tableRows(t *testing.T, body []byte, id string) []map[string]string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var table *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "table" && attrOf(n, "id") == id {
			table = n
		}
		for c := n.FirstChild; c != nil && table == nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if table == nil {
		t.Fatalf("no table #%s", id)
	}
	var rows []map[string]string
	var walk func(n *html.Node, row map[string]string)
	walk = func(n *html.Node, row map[string]string) {
		if n.Type == html.ElementNode && n.Data == "tr" && attrOf(n, "data-app") != "" {
			row = map[string]string{"data-app": attrOf(n, "data-app")}
			rows = append(rows, row)
		}
		if row != nil && n.Type == html.ElementNode {
			for _, cl := range strings.Fields(attrOf(n, "class")) {
				if n.Data == "a" {
					row[cl+"@href"] = attrOf(n, "href")
				} else if n.Data == "td" && !slices.Contains([]string{"num", "text"}, cl) {
					row[cl] = strings.TrimSpace(textOf(n))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, row)
		}
	}
	walk(table, nil)
	return rows
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// TestJobPageChromium walks fleet → a run's job history → its comparison
// with the baseline's median run, and app page → job history, by
// clicking, in headless Chromium at 1280 px: no console error, no
// horizontal overflow, both trend charts drawn with a dot per run.
func TestJobPageChromium(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	ts := configChangeServer(t, cost.PriceList{})
	c := sparktest.StartPage(t, bin, 1280, 900)

	c.Navigate(ts.url + "/")
	c.CheckFits("fleet with its cost column", 1280)
	c.Click(`tr[data-app] a.job-link`)
	if got, want := c.EvalString(`location.pathname`), "/jobs/"+url.PathEscape(configChangeJob); got != want {
		t.Fatalf("fleet's history link led to %s, want %s", got, want)
	}
	if got := c.EvalString(`document.querySelector("#job-key").textContent`); got != configChangeJob {
		t.Errorf("job page h1: got %q, want %q", got, configChangeJob)
	}
	if n := c.EvalInt(`document.querySelectorAll("#job-runs tbody tr").length`); n != 4 {
		t.Errorf("job page: %d runs, want 4", n)
	}
	if n := c.EvalInt(`document.querySelectorAll("svg.trend").length`); n != 2 {
		t.Errorf("job page: %d trend charts, want 2 (wall time, cost)", n)
	}
	if n := c.EvalInt(`document.querySelectorAll("svg.trend a.trend-dot").length`); n != 8 {
		t.Errorf("job page: %d trend dots, want one per run on each chart, 8", n)
	}
	c.Screenshot("job")
	c.CheckFits("job page", 1280)
	c.CheckClean("job page")

	newest := c.EvalString(`document.querySelector("#job-runs tbody tr").dataset.app`)
	c.Click(`#job-runs tbody tr a.compare-link`)
	if got := c.EvalString(`location.pathname + " " + new URLSearchParams(location.search).get("b")`); got != "/compare "+newest {
		t.Errorf("the newest run's compare link led to %q, want /compare with b=%s", got, newest)
	}
	if n := c.EvalInt(`document.querySelectorAll("table").length`); n == 0 {
		t.Errorf("compare page: no table: %s", c.EvalString(`document.body.innerText.slice(0, 300)`))
	}
	c.CheckFits("compare page", 1280)
	c.CheckClean("compare page")

	c.Navigate(ts.url + "/apps/" + url.PathEscape(newest))
	c.Click(`#job-link`)
	if got := c.EvalString(`document.querySelector("#job-key").textContent`); got != configChangeJob {
		t.Errorf("the app page's job link led to job %q", got)
	}
	c.Click(`#nav-jobs`)
	if got := c.EvalString(`[...document.querySelectorAll("#jobs tbody tr")].map(r => r.dataset.job).join(",")`); got != configChangeJob {
		t.Errorf("jobs page lists %q, want %q", got, configChangeJob)
	}
	c.CheckFits("jobs page", 1280)
	c.CheckClean("jobs page")
}

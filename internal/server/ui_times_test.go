package server

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
	"github.com/sparkdx/sparkdx/internal/units"
)

// TestAppPageTimesAgreeWithCLI: for every shared Spark log and a failed
// and an SQL scenario, the app page's duration, each phase of its phase
// bar and each stage's duration are what `sparkdx analyze` reports for the
// same log (the report document the CLI prints, built by the same
// pipeline), in the same units.
func TestAppPageTimesAgreeWithCLI(t *testing.T) {
	roots := []string{sparktest.Path(t, "spark-events"), "../../testdata/scenarios/python-exception/spark-4.3.0",
		"../../testdata/scenarios/sql-aqe/spark-4.3.0"}
	ts := startServer(t, t.TempDir(), "", roots...)
	ts.waitIdle(t)
	durCard := regexp.MustCompile(`<div class="card figure" data-name="wall time">wall time<b>([^<]*)</b>`)
	phase := regexp.MustCompile(`<span class="ph-[a-zA-Z]+" style="[^"]*" title="([a-z ]+) ([^"]*)">`)
	stageRow := regexp.MustCompile(`class="stage-link" href="[^"]*">(\d+)\.(\d+)</a></td><td>.*?</td><td>[A-Z]+</td><td class="num">\d+/\d+</td><td class="num">([^<]*)</td>`)
	jobLink := regexp.MustCompile(`href="(/apps/[^/"]+/jobs/\d+[^"]*)"`)
	jobStageRow := regexp.MustCompile(`class="stage-link" href="[^"]*">(\d+)\.(\d+)</a></td><td title=.*?</td><td class="st-[A-Z]+">[A-Z]+</td><td class="num">[^<]*</td><td class="num">([^<]*)</td>`)
	appQuery := regexp.MustCompile(`class="query-link" href="[^"]*">(\d+)</a></td><td>.*?</td><td class="num">([^<]*)</td>`)
	listQuery := regexp.MustCompile(`class="query-link" href="[^"]*">(\d+)</a></td><td>.*?</td><td>[^<]*</td><td>[^<]*</td><td class="num">([^<]*)</td>`)
	checked, jobRows, sqlRows := 0, 0, 0
	for _, root := range roots {
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			logs, err := eventlog.Open(context.Background(), filepath.Join(root, e.Name()), eventlog.OpenOptions{})
			if err != nil || len(logs) != 1 {
				continue // not one application's log (History Server expectations, a directory of several)
			}
			a, src, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
			if err != nil {
				continue
			}
			r := pipeline.Diagnose(a, nil, src, nil).Report
			path := "/apps/" + r.App.ID
			if r.App.AttemptID != "" {
				path += "?attempt=" + r.App.AttemptID
			}
			code, body := ts.get(t, path)
			if code != 200 {
				t.Errorf("%s: GET %s: %d", e.Name(), path, code)
				continue
			}
			page := string(body)
			if m := durCard.FindStringSubmatch(page); m == nil || html.UnescapeString(m[1]) != units.Millis(r.App.DurationMs) {
				t.Errorf("%s: app page duration %q, the CLI says %s", e.Name(), m, units.Millis(r.App.DurationMs))
			}
			want := map[string]int64{"resource wait": r.Phases.ResourceWaitMs, "compute": r.Phases.ComputeMs,
				"output write": r.Phases.OutputWriteMs, "driver only": r.Phases.DriverOnlyMs}
			shown := map[string]bool{}
			for _, m := range phase.FindAllStringSubmatch(page, -1) {
				shown[m[1]] = true
				if got := html.UnescapeString(m[2]); got != units.Millis(want[m[1]]) {
					t.Errorf("%s: phase %s on the page %s, the CLI says %s", e.Name(), m[1], got, units.Millis(want[m[1]]))
				}
			}
			for name, ms := range want {
				if ms > 0 && !shown[name] {
					t.Errorf("%s: phase %s (%s in the CLI) missing from the page", e.Name(), name, units.Millis(ms))
				}
			}
			stages := map[string]string{}
			for _, s := range r.Stages {
				d := units.Millis(s.DurationMs)
				if s.Status == "SKIPPED" {
					d = "—" // never submitted: the CLI's "(skipped) 0ms", no duration on the page
				}
				stages[strconv.Itoa(s.StageID)+"."+strconv.Itoa(s.AttemptID)] = d
			}
			rows := stageRow.FindAllStringSubmatch(page, -1)
			if len(rows) != len(r.Stages) {
				t.Errorf("%s: %d stage rows on the page, %d stages in the CLI report", e.Name(), len(rows), len(r.Stages))
			}
			for _, m := range rows {
				if got, want := html.UnescapeString(m[3]), stages[m[1]+"."+m[2]]; got != want {
					t.Errorf("%s: stage %s.%s lasts %s on the page, %s in the CLI", e.Name(), m[1], m[2], got, want)
				}
			}
			// SQL queries: the app page's table and the SQL list page.
			queries := map[string]string{}
			for _, q := range r.SQL {
				queries[strconv.FormatInt(q.ID, 10)] = units.Millis(q.DurationMs)
			}
			_, list := ts.get(t, "/apps/"+r.App.ID+"/sql"+strings.TrimPrefix(path, "/apps/"+r.App.ID))
			for _, pg := range []struct {
				name, body string
				re         *regexp.Regexp
			}{{"app page", page, appQuery}, {"SQL page", string(list), listQuery}} {
				for _, m := range pg.re.FindAllStringSubmatch(pg.body, -1) {
					if want, ok := queries[m[1]]; ok {
						if got := html.UnescapeString(m[2]); got != want {
							t.Errorf("%s: %s: query %s lasts %s, %s in the CLI", e.Name(), pg.name, m[1], got, want)
						}
						sqlRows++
					}
				}
			}
			// Each job page's stage rows too (they read the API's documents).
			_, jobs := ts.get(t, "/apps/"+r.App.ID+"/jobs"+strings.TrimPrefix(path, "/apps/"+r.App.ID))
			for _, j := range jobLink.FindAllStringSubmatch(string(jobs), -1) {
				_, body := ts.get(t, html.UnescapeString(j[1]))
				for _, m := range jobStageRow.FindAllStringSubmatch(string(body), -1) {
					if got, want := html.UnescapeString(m[3]), stages[m[1]+"."+m[2]]; got != want {
						t.Errorf("%s: %s: stage %s.%s lasts %s, %s in the CLI", e.Name(), j[1], m[1], m[2], got, want)
					}
					jobRows++
				}
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked %d applications, want every shared log and both scenarios", checked)
	}
	if sqlRows < 8 {
		t.Errorf("compared %d SQL rows, want the queries of the SQL apps on both pages", sqlRows)
	}
	if jobRows < 50 {
		t.Errorf("compared %d stage rows of job pages, want the stages of every job", jobRows)
	}
	t.Logf("%d applications: durations, phases and stage durations agree (and %d stage rows of job pages, %d SQL rows)", checked, jobRows, sqlRows)
}

// TestIncompleteAppPageScalesToWork: in Chromium, the page of an
// application whose log ends without its end event and was last written
// now (its driver died; the copy is new) says what `sparkdx analyze` says
// for it — duration to its last event, not to the file's time ("19101h00m"
// once) — and its timeline spans that duration: the running stage's bar
// and the phase lane reach the chart's end instead of collapsing into its
// first pixel.
func TestIncompleteAppPageScalesToWork(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	const app = "application_1516285256255_0012"
	raw, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, app), []byte(strings.Join(lines[:40], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	logs, err := eventlog.Open(context.Background(), filepath.Join(dir, app), eventlog.OpenOptions{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("%d logs, %v", len(logs), err)
	}
	a, src, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The text report's duration ("2m40s  incomplete (no application end;
	// times run to the last event)"): the JSON report's app.durationMs is 0
	// for an incomplete app.
	d := pipeline.Diagnose(a, nil, src, nil)
	want := units.Millis(d.Result.DurationMs)
	if d.Report.App.Completed || d.Result.DurationMs < 60_000 || d.Result.DurationMs > 600_000 {
		t.Fatalf("the CLI says completed=%v, %s; want an incomplete app of minutes", d.Report.App.Completed, want)
	}

	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	c := sparktest.StartPage(t, bin, 1280, 900)
	c.Navigate(ts.url + "/")
	if got := c.EvalString(`document.querySelector('tr[data-app="` + app + `"] td:nth-child(5)').textContent`); got != want {
		t.Errorf("fleet row: duration %s, the CLI says %s", got, want)
	}
	c.Click(`tr[data-app="` + app + `"] a`)
	if got := c.EvalString(`document.querySelector('.card.figure[data-name="wall time"] b').textContent`); got != want {
		t.Errorf("app page: duration %s, the CLI says %s", got, want)
	}
	if got := c.EvalString(`document.querySelector("#gantt text:last-of-type").textContent`); got != want {
		t.Errorf("timeline spans %s, the CLI's duration is %s", got, want)
	}
	end := c.EvalInt(`parseInt(document.querySelector("#gantt text:last-of-type").getAttribute("x"))`)
	right := c.EvalInt(`Math.max(...[...document.querySelectorAll("#gantt rect")].map(r => parseInt(r.getAttribute("x")) + parseInt(r.getAttribute("width"))))`)
	widest := c.EvalInt(`Math.max(...[...document.querySelectorAll("#gantt rect")].map(r => parseInt(r.getAttribute("width"))))`)
	if right < end-2 || widest < end/4 {
		t.Errorf("timeline: bars reach x=%d of %d, the widest %d px: not scaled to the work done", right, end, widest)
	}
	c.Screenshot("incomplete-app")
	c.CheckFits("incomplete app page", 1280)
}

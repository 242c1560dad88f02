package server

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/units"
)

// TestHeadlineEveryView renders every view of every committed scenario
// log — the text report, the JSON report, the HTML report, serve's app
// page and fleet, and /metrics — and checks that each shows the same
// headline numbers (analyze.Headline, issue 30: one number, one value):
// wall time, executors, core time used, GC share, CPU share, task
// attempts with failed and killed, exit code, critical path.
func TestHeadlineEveryView(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*", "spark-*", "*"))
	if err != nil || len(logs) < 40 {
		t.Fatalf("got %d scenario logs (%v), want every scenario's", len(logs), err)
	}
	var roots []string
	seen := map[string]bool{}
	for _, l := range logs {
		if d := filepath.Dir(l); !seen[d] {
			seen[d] = true
			roots = append(roots, agedInProgress(t, d))
		}
	}
	ts := startServer(t, t.TempDir(), "", roots...)
	ts.waitIdle(t)
	_, fleet := ts.get(t, "/?length=1000")
	_, metrics := ts.get(t, "/metrics")
	checked := 0
	for _, path := range logs {
		ls, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
		if err != nil || len(ls) != 1 {
			continue // the agent's samples beside a log
		}
		t.Run(strings.TrimPrefix(path, "../../testdata/scenarios/"), func(t *testing.T) {
			a, src, _, err := pipeline.Replay(context.Background(), ls[0], replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := pipeline.Diagnose(a, nil, src, nil)
			in := &report.Input{Report: d.Report, Result: d.Result, Attempt: a}
			h := d.Result.Headline
			figs := report.Figures(d.Result)
			checkText(t, in, figs)
			checkJSON(t, d.Report, h)
			checkHTMLReport(t, in, figs)
			id := d.Report.App.ID
			_, page := ts.get(t, "/apps/"+id)
			for _, f := range figs {
				want := `data-name="` + html.EscapeString(f.Name) + `">` + html.EscapeString(f.Name)
				i := bytes.Index(page, []byte(want))
				if i < 0 || !bytes.Contains(page[i:min(i+300, len(page))], []byte(">"+html.EscapeString(f.Value)+"</b>")) {
					t.Errorf("app page: no %s of %q", f.Name, f.Value)
				}
			}
			checkSummaries(t, in, page)
			checkFleet(t, fleet, id, h)
			checkMetrics(t, metrics, id, h)
			checked++
		})
	}
	if checked < 40 {
		t.Errorf("checked %d logs, want every scenario log", checked)
	}
}

// checkText finds each figure on a line of its own: name, value, what it
// is a share of.
func checkText(t *testing.T, in *report.Input, figs []report.Figure) {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteText(&b, []*report.Input{in}, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(f.Name) + ` +` + regexp.QuoteMeta(f.Value) + ` +` + regexp.QuoteMeta(f.Of) + `$`)
		if !re.Match(b.Bytes()) {
			t.Errorf("text: no line %s %s %s", f.Name, f.Value, f.Of)
		}
	}
}

// checkJSON decodes the report as a program would and compares its
// headline with the analysis's.
func checkJSON(t *testing.T, r any, h analyze.Headline) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Headline struct {
			DurationMs        int64    `json:"durationMs"`
			CoreTimeUsedRatio float64  `json:"coreTimeUsedRatio"`
			GCRatio           float64  `json:"gcRatio"`
			CPURatio          *float64 `json:"cpuRatio"`
			ExitCode          *int     `json:"exitCode"`
			Tasks             struct {
				Launched, Finished, Succeeded, Failed, Killed, Unfinished int
			} `json:"tasks"`
		} `json:"headline"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	g := doc.Headline
	tk := g.Tasks
	if g.DurationMs != h.DurationMs || g.CoreTimeUsedRatio != h.CoreTimeUsed || g.GCRatio != h.GCShare ||
		tk.Launched != h.Tasks.Launched || tk.Finished != h.Tasks.Finished || tk.Failed != h.Tasks.Failed ||
		tk.Killed != h.Tasks.Killed || tk.Succeeded != h.Tasks.Succeeded || tk.Unfinished != h.Tasks.Unfinished {
		t.Errorf("json: headline %+v, the analysis says %+v", g, h)
	}
	if tk.Launched != tk.Finished+tk.Unfinished || tk.Finished != tk.Succeeded+tk.Failed+tk.Killed {
		t.Errorf("json: tasks %+v do not add up", tk)
	}
	if (g.ExitCode == nil) != (h.ExitCode == nil) || g.ExitCode != nil && *g.ExitCode != *h.ExitCode {
		t.Errorf("json: exit code %v, the analysis says %v", g.ExitCode, h.ExitCode)
	}
	if (g.CPURatio == nil) != (h.CPUTimeMs <= 0) {
		t.Errorf("json: cpu ratio %v with %d ms of CPU time, want null exactly when the log has none", g.CPURatio, h.CPUTimeMs)
	}
}

// checkHTMLReport finds each figure's card in the HTML report.
func checkHTMLReport(t *testing.T, in *report.Input, figs []report.Figure) {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteHTML(&b, []*report.Input{in}); err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		want := `<div class="k">` + html.EscapeString(f.Name) + `</div><div class="v">` + html.EscapeString(f.Value) +
			`</div><div class="of">` + html.EscapeString(f.Of) + `</div>`
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("html: no card %s", want)
		}
	}
}

// checkSummaries checks the streaming summary (whenever the app has a
// streaming query) and the executor memory sizing (whenever the log has
// memory peaks) are in the text, JSON and HTML reports and on the app
// page, the same lines in each.
func checkSummaries(t *testing.T, in *report.Input, page []byte) {
	t.Helper()
	r := in.Result
	var text, htm bytes.Buffer
	if err := report.WriteText(&text, []*report.Input{in}, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteHTML(&htm, []*report.Input{in}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(in.Report)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Streaming []json.RawMessage `json:"streaming"`
		Memory    *struct {
			PeakHeapBytes int64 `json:"peakHeapBytes"`
		} `json:"memory"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Streaming) != len(r.Streaming) {
		t.Errorf("json: %d streaming queries, the analysis has %d", len(doc.Streaming), len(r.Streaming))
	}
	if n := len(r.Streaming); n > 0 {
		for view, got := range map[string]bool{"text": bytes.Contains(text.Bytes(), []byte("\nStreaming queries  ")),
			"html": bytes.Contains(htm.Bytes(), []byte(`-streaming"`)), "app page": bytes.Contains(page, []byte(`id="streaming"`))} {
			if !got {
				t.Errorf("%s: no streaming summary for %d query runs", view, n)
			}
		}
	}
	lines := report.MemoryLines(r.Memory)
	if (doc.Memory == nil) != (lines == nil) || doc.Memory != nil && doc.Memory.PeakHeapBytes != r.Memory.PeakHeapBytes {
		t.Errorf("json: memory %+v, the analysis has %+v", doc.Memory, r.Memory)
	}
	for _, l := range lines {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(l[0]) + ` +` + regexp.QuoteMeta(l[1]) + `$`).Match(text.Bytes()) {
			t.Errorf("text: no memory line %s %s", l[0], l[1])
		}
		cell := "<th>" + html.EscapeString(l[0]) + "</th><td>" + html.EscapeString(l[1]) + "</td>"
		if !bytes.Contains(htm.Bytes(), []byte(cell)) || !bytes.Contains(page, []byte(cell)) {
			t.Errorf("html report or app page: no memory row %s", cell)
		}
	}
}

// agedInProgress is dir, or, when dir holds a .inprogress log, a copy of
// it whose files were last written a day ago: serve takes a log written
// within pipeline.LiveWithin for a running application and counts its
// wall time up to now, while the views compared here read the log to its
// last event. A fresh checkout gives every file the checkout's time.
func agedInProgress(t *testing.T, dir string) string {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(files, func(f os.DirEntry) bool { return strings.HasSuffix(f.Name(), ".inprogress") }) {
		return dir
	}
	out := filepath.Join(t.TempDir(), filepath.Base(filepath.Dir(dir)), filepath.Base(dir))
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-24 * time.Hour)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(out, f.Name())
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkFleet finds the app's fleet row: its duration and task attempts.
func checkFleet(t *testing.T, fleet []byte, id string, h analyze.Headline) {
	t.Helper()
	row := regexp.MustCompile(`<tr data-app="` + regexp.QuoteMeta(id) + `">(?s:.*?)<td class="num">([^<]*)</td>(?s:.*?)<td class="num tasks">(\d+)</td>`).FindSubmatch(fleet)
	if row == nil {
		t.Errorf("fleet: no row for %s", id)
		return
	}
	if got := html.UnescapeString(string(row[1])); got != units.Millis(h.DurationMs) {
		t.Errorf("fleet: duration %s, the headline says %s", got, units.Millis(h.DurationMs))
	}
	if got, _ := strconv.Atoi(string(row[2])); got != h.Tasks.Launched {
		t.Errorf("fleet: %d tasks, the headline says %d launched", got, h.Tasks.Launched)
	}
}

// checkMetrics reads the app's series from /metrics.
func checkMetrics(t *testing.T, metrics []byte, id string, h analyze.Headline) {
	t.Helper()
	value := func(name, extra string) (float64, bool) {
		re := regexp.MustCompile(`(?m)^` + name + `\{app_id="` + regexp.QuoteMeta(id) + `",attempt_id=""` + extra + `\} (\S+)$`)
		m := re.FindSubmatch(metrics)
		if m == nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(string(m[1]), 64)
		return v, err == nil
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, c := range []struct {
		name, extra string
		want        float64
	}{
		{"spark_app_duration_seconds", "", float64(h.DurationMs) / 1000},
		{"spark_compute_efficiency_ratio", "", h.CoreTimeUsed},
		{"spark_gc_ratio", "", h.GCShare},
		{"spark_task_time_seconds", "", float64(h.TaskTimeMs) / 1000},
		{"spark_max_executors", "", float64(h.MaxExecutors)},
		{"spark_tasks", `,state="succeeded"`, float64(h.Tasks.Succeeded)},
		{"spark_tasks", `,state="failed"`, float64(h.Tasks.Failed)},
		{"spark_tasks", `,state="killed"`, float64(h.Tasks.Killed)},
		{"spark_tasks", `,state="unfinished"`, float64(h.Tasks.Unfinished)},
	} {
		if got, ok := value(c.name, c.extra); !ok || !near(got, c.want) {
			t.Errorf("/metrics: %s%s = %v (found %v), the headline says %v", c.name, c.extra, got, ok, c.want)
		}
	}
	got, ok := value("spark_app_exit_code", "")
	switch {
	case h.ExitCode == nil && ok:
		t.Errorf("/metrics: spark_app_exit_code %v, the log has no exit code", got)
	case h.ExitCode != nil && (!ok || got != float64(*h.ExitCode)):
		t.Errorf("/metrics: spark_app_exit_code %v (found %v), the log says %d", got, ok, *h.ExitCode)
	}
}

package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/sparkdx/sparkdx/docs/recipes"
	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/profile"
	"github.com/sparkdx/sparkdx/internal/units"
)

// The page is one self-contained file: the CSS, the script and every chart
// (server-side SVG) are inlined, and a Content-Security-Policy forbids the
// page from loading anything over the network.
//
//go:embed assets/report.html.tmpl assets/report.css assets/report.js
var assets embed.FS

// htmlPage is what the page template reads.
type htmlPage struct {
	Title string
	CSS   template.CSS
	JS    template.JS
	Apps  []htmlApp
	Diff  *htmlDiff // the comparison, for sparkdx diff
}

// htmlApp is one application attempt's section.
type htmlApp struct {
	Anchor    string
	Role      string // "before" or "after" on a diff page
	In        *Input
	Headline  []kv
	SLIs      []Figure
	Charts    []svgChart
	Findings  []htmlFinding  // warning and critical, shown
	Info      []htmlFinding  // info, collapsed unless the page shows all
	AllOpen   bool           // the info findings start expanded
	Counts    map[string]int // findings by severity name
	Stages    []htmlStage
	Queries   []htmlQuery
	Executors []htmlExecutor
	Streaming []streamingRow // every streaming query run
	Commits   []commitRow    // writes joined to their committer's summary
	Memory    []kv           // the executors' memory against the ask
	Cost      []kv           // core-hours, GB-hours, money (cost.go)
	Tuning    []tuningRow    // sparkdx tune's changes (tuning.go)
	Flame     *htmlFlame     // flame graphs from profiles (profile.go)
}

// htmlQuery is one SQL query's row: the longest first, at most
// htmlQueriesShown of them.
type htmlQuery struct {
	ID                                                   int64
	DurationMs, TaskTimeMs                               int64
	Duration, TaskTime, Jobs, Stages, Description, Heavy string
	Failed                                               bool
}

const htmlQueriesShown = 50

// htmlFlameStages is how many stages (profiledStages) get a flame graph
// of their own.
const htmlFlameStages = 10

type kv struct{ K, V string }

type htmlFinding struct {
	diagnose.Finding
	Sev    string
	Stages string
	Execs  string
	Cost   string
	Parts  []htmlPart // the stages or executors a folded finding covers
	// Howto is the recipe's section, from the recipes embedded in the
	// binary: the page stays self-contained and still says what to do.
	Howto string
}

// htmlPart is one stage or executor of a folded finding, for a person:
// the raw evidence is the JSON report's.
type htmlPart struct {
	Where, Sev, Cost, Detail string
}

type htmlStage struct {
	analyze.Stage
	ID, Status, Duration, P50, P95, Max, Skew, Input, ShuffleR, ShuffleW, Spill, GC string
}

type htmlExecutor struct {
	analyze.Executor
	Cores, Lifetime, Busy, Util, Heap, Python, GC, Cause, Exit string
}

// HTMLOptions configure the HTML report.
type HTMLOptions struct {
	// AllFindings starts the info findings expanded (sparkdx analyze
	// --all); they are collapsed under one line otherwise.
	AllFindings bool
}

// WriteHTML writes one self-contained HTML page with a section per input.
func WriteHTML(w io.Writer, ins []*Input) error { return WriteHTMLWith(w, ins, HTMLOptions{}) }

// WriteHTMLWith is WriteHTML with options.
func WriteHTMLWith(w io.Writer, ins []*Input, opts HTMLOptions) error {
	page, err := newPage()
	if err != nil {
		return err
	}
	for i, in := range ins {
		app := htmlAppOf(in, i)
		app.AllOpen = opts.AllFindings
		page.Apps = append(page.Apps, app)
	}
	page.Title = "sparkdx report"
	if len(ins) == 1 {
		page.Title = "sparkdx · " + units.OneLine(ins[0].Report.App.ID) + " · " + units.OneLine(ins[0].Report.App.Name)
	}
	return renderPage(w, page)
}

func newPage() (*htmlPage, error) {
	css, err := assets.ReadFile("assets/report.css")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	js, err := assets.ReadFile("assets/report.js")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return &htmlPage{CSS: template.CSS(css) + profile.FlameCSS, JS: template.JS(js) + profile.FlameJS + profile.FlameInit}, nil
}

func renderPage(w io.Writer, page *htmlPage) error {
	t, err := template.New("report.html.tmpl").Funcs(template.FuncMap{
		"pct":      fmtPct,
		"dur":      fmtDuration,
		"bytes":    fmtBytes,
		"time":     fmtTime,
		"upper":    strings.ToUpper,
		"oneLine":  units.OneLine,
		"add":      func(a, b int) int { return a + b },
		"pctWidth": func(v float64) string { return fmt.Sprintf("%.2f%%", 100*v) },
	}).ParseFS(assets, "assets/report.html.tmpl")
	if err != nil {
		return fmt.Errorf("report: html template: %w", err)
	}
	if err := t.Execute(w, page); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	return nil
}

func htmlAppOf(in *Input, i int) htmlApp {
	app := htmlApp{Anchor: fmt.Sprintf("app-%d", i), In: in, Counts: map[string]int{}}
	a := in.Report.App
	l := in.Report.Log
	app.Headline = []kv{{"application", a.ID}, {"name", a.Name}, {"user", a.User},
		{"Spark", a.SparkVersion}, {"master", a.Master}, {"started", fmtTime(a.StartTime)}}
	if a.AttemptID != "" {
		app.Headline = append(app.Headline, kv{"attempt", a.AttemptID})
	}
	for _, p := range in.Report.Plugins {
		app.Headline = append(app.Headline, kv{"accelerator", p.String()})
	}
	app.Headline = append(app.Headline, kv{"status", in.Report.Status()},
		kv{"log", fmt.Sprintf("%s (%s, %d events, %d bad lines)", l.Path, fmtBytes(l.Bytes), l.Events, l.BadLines)})
	for _, f := range sortedFindings(in.Report.Findings) {
		app.Counts[f.Severity.String()]++
		howto, _ := recipes.Read(f.Recipe) // a finding without an embedded recipe keeps its path
		f.Recipe = recipePath(f.Recipe)
		hf := htmlFinding{Finding: f, Sev: f.Severity.String(), Stages: joinInts(f.StageIDs), Execs: strings.Join(f.ExecutorIDs, ", "),
			Cost: f.Cost.String(), Howto: howto}
		for _, p := range f.Parts {
			hf.Parts = append(hf.Parts, htmlPart{Where: p.Where(), Sev: p.Severity.String(), Cost: p.Cost.Short(), Detail: p.Detail})
		}
		if f.Severity <= diagnose.Info {
			app.Info = append(app.Info, hf)
			continue
		}
		app.Findings = append(app.Findings, hf)
	}
	r := in.Result
	if r == nil {
		return app
	}
	app.SLIs = htmlSLIs(r)
	app.Charts = []svgChart{phaseGantt(r), stageTimeline(r), memoryChart(in), durationHeatmap(in), skewChart(r)}
	for i := range app.Charts {
		// Element ids stay unique when a page holds several runs.
		app.Charts[i].ID = app.Anchor + "-" + app.Charts[i].ID
	}
	for _, s := range r.Stages {
		app.Stages = append(app.Stages, htmlStageOf(s))
	}
	app.Flame = flameOf(in, htmlFlameStages)
	for _, q := range topQueries(r, htmlQueriesShown) {
		var heavy []string
		for _, h := range q.heavy {
			heavy = append(heavy, h.name+" "+h.what)
		}
		app.Queries = append(app.Queries, htmlQuery{ID: q.x.ID, DurationMs: q.durationMs, TaskTimeMs: q.taskTimeMs,
			Duration: fmtDuration(q.durationMs), TaskTime: fmtDurationOrDash(q.taskTimeMs), Jobs: idList(q.jobs),
			Stages: idList(q.stages), Description: q.x.Description, Heavy: strings.Join(heavy, " · "), Failed: q.failed})
	}
	for _, e := range r.Executors {
		app.Executors = append(app.Executors, htmlExecutorOf(e))
	}
	app.Streaming = streamingRows(r.Streaming)
	app.Commits = commitRows(in.Report.Commits)
	for _, l := range MemoryLines(r.Memory) {
		app.Memory = append(app.Memory, kv{l[0], l[1]})
	}
	for _, l := range CostLines(in.Report.ResourceCost) {
		app.Cost = append(app.Cost, kv{l[0], l[1]})
	}
	app.Tuning = tuningRows(in.Report.Tuning)
	return app
}

// htmlSLIs are the headline figures (Figures), then the phases and the
// what-if.
func htmlSLIs(r *analyze.Result) []Figure {
	out := Figures(r)
	for _, p := range []struct {
		name  string
		phase analyze.Phase
	}{{"resource wait", analyze.PhaseResourceWait}, {"compute", analyze.PhaseCompute},
		{"output write", analyze.PhaseOutputWrite}, {"driver only", analyze.PhaseDriverOnly}} {
		out = append(out, Figure{p.name, fmtDuration(phaseMs(r.Phases, p.phase)), fmtPct(r.Phases.Ratio(p.phase)) + " of the wall time"})
	}
	for _, x := range r.WhatIf {
		of := "what-if: the recorded wall time plus what a replay of its tasks on these cores changes"
		if x.Actual {
			of = "what-if: the recorded run"
		}
		out = append(out, Figure{"on " + x.Label(), fmtDuration(x.EstimatedMs), of})
	}
	return out
}

func htmlStageOf(s analyze.Stage) htmlStage {
	id := fmt.Sprint(s.StageID)
	if s.AttemptID > 0 {
		id += fmt.Sprintf(".%d", s.AttemptID)
	}
	return htmlStage{Stage: s, ID: id, Status: lowerStatus(s.Status), Duration: fmtDuration(s.DurationMs),
		P50: fmtDuration(s.TaskDurationMs.P50), P95: fmtDuration(s.TaskDurationMs.P95), Max: fmtDuration(s.TaskDurationMs.Max),
		Skew: fmtRatio(s.SkewDuration), Input: fmtBytesOrDash(s.InputBytes), ShuffleR: fmtBytesOrDash(s.ShuffleReadBytes),
		ShuffleW: fmtBytesOrDash(s.ShuffleWriteBytes), Spill: fmtBytesOrDash(s.DiskSpilledBytes),
		GC: fmtPct(share(s.GCShareMs, s.RunTimeTotalMs))}
}

// htmlExecutorOf is one executor's row. Its GC time is the headline's
// (analyze.Headline.GCTimeMs): each task's capped at its run time, so
// the rows add up to the key number.
func htmlExecutorOf(e analyze.Executor) htmlExecutor {
	return htmlExecutor{Executor: e, Cores: fmt.Sprint(e.Cores), Lifetime: fmtDuration(e.LifetimeMs),
		Busy: fmtDuration(e.BusyMs), Util: fmtPct(e.Utilization), Heap: fmtBytesOrDash(e.PeakJVMHeapBytes),
		Python: fmtBytesOrDash(e.PeakPythonRSSBytes), GC: fmtDuration(e.GCShareMs) + " · " + fmtPct(share(e.GCShareMs, e.RunTimeMs)),
		Cause: string(e.Loss.Cause), Exit: exitCell(e)}
}

// exitCell is an executor's exit code in a table: empty while it lives,
// "unknown" when it went away and the log gives no code.
func exitCell(e analyze.Executor) string {
	switch {
	case e.RemovedTime == model.NoTime:
		return ""
	case e.Loss.ExitCode == analyze.NoExitCode:
		return "unknown"
	}
	return fmt.Sprint(e.Loss.ExitCode)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

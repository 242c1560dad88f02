package server

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/server/ui"
	"github.com/sparkdx/sparkdx/internal/units"
)

// appView is what the app page shows, computed from the model while it is
// read-locked; templates escape every string in it.
type appView struct {
	Title  string
	Live   bool
	Sum    AppSummary
	Others []AppSummary
	Agent  []agentChart // from agent samples, added per request

	// From the model; stored for finished logs so their pages need no replay.
	Start, End int64            // the charts' time span
	Phases     map[string]int64 // from the timeline
	Gantt      *gantt
	Memory     *memChart
	Heat       *heatmap
	Stages     []stageRow
	Executors  []execRow
	SQL        []sqlRow
	Streaming  []streamRow // Structured Streaming query runs
	Root       *rootCause  // what failed the application, when a job failed
	// Figures are the headline numbers, as the text and HTML reports
	// show them (report.Figures of analyze.Headline).
	Figures []report.Figure
	// Sizing is the executors' memory against the ask, as the reports
	// say it (report.MemoryLines); nil without memory peaks.
	Sizing [][2]string
}

// streamRow is one Structured Streaming query run as the analysis sees it:
// its last batch as Spark reported it, and its rates over the recent
// batches (analyze.StreamingQuery).
type streamRow struct {
	Name, ID           string
	Batches            int
	LastBatchMs        int64
	EarlyBatchMs       int64
	RecentBatchMs      int64
	InputPerSec        float64 // over the recent batches
	ProcessedPerSec    float64
	StateRows          int64
	StateMemoryBytes   int64
	Exception          string
	RecentBatchesRated bool // enough batches for the rates
}

// rootCause is what failed an application: its first failed job and the
// task failure that aborted it (exception, message, user frame), with the
// stage and task to open — reportv1.OutcomeOf, the report's "outcome", as
// the page shows it.
type rootCause struct {
	JobID      int
	JobMessage string
	Kind       string // analyze.JobAborted, JobCancelled, ...
	Status     string // the application's outcome: failed, stopped
	Summary    string // which jobs failed, in words
	// From the task failure that aborted the job, when one did.
	Class, Message, Frame, Reason string
	Attempts, Tasks               int
	Executors                     []string
	// Stage is the failed stage attempt to open (-1 when none is known),
	// Task the last failed attempt of the task that aborted it (-1 when
	// none).
	Stage, StageAttempt int
	Task                int64
}

// rootCauseOf explains the application's root cause as the report does;
// nil when no job failed or stopped.
func rootCauseOf(a *model.Attempt, res *analyze.Result) *rootCause {
	o := reportv1.OutcomeOf(res)
	c := o.RootCause
	if c == nil {
		return nil
	}
	rc := &rootCause{JobID: c.JobID, JobMessage: c.Message, Kind: c.Kind, Status: o.Status, Summary: o.Summary,
		Class: c.Exception, Message: c.ExceptionMessage, Frame: c.UserFrame, Reason: c.Reason,
		Attempts: c.Attempts, Tasks: c.Tasks, Executors: c.ExecutorIDs,
		Stage: c.StageID, StageAttempt: c.StageAttempt, Task: c.TaskID}
	if rc.Stage >= 0 {
		return rc
	}
	// No task aborted it (a job the stop cancelled): its last failed stage.
	for _, s := range a.Stages {
		if s.Status == model.StageFailed && slices.Contains(s.JobIDs, rc.JobID) &&
			(s.StageID > rc.Stage || s.StageID == rc.Stage && s.AttemptID > rc.StageAttempt) {
			rc.Stage, rc.StageAttempt = s.StageID, s.AttemptID
		}
	}
	return rc
}

type stageRow struct {
	StageID, AttemptID, NumTasks, Done           int
	Name, Status                                 string
	DurationMs, Input, ShuffleRead, ShuffleWrite int64
	Spill, GC                                    int64
}

type execRow struct {
	ID, Host, Reason     string
	Cores, Tasks, Failed int
	Added, Removed       int64
	PeakHeap             int64
}

type sqlRow struct {
	ID         int64
	Desc       string
	DurationMs int64
	Jobs       []int
	Joins      []joinNode
}

type joinNode struct {
	Name   string
	Inputs []string
}

const chartW, labelW = 1000, 180

type bar struct {
	X, Y, Width         int
	Color, Label, Short string
}

type gantt struct {
	W, H, AxisY, LabelX, EndX int
	Span                      int64
	Phases                    []bar // the phase timeline lane
	Bars                      []bar
}

var phaseColors = map[analyze.Phase]string{analyze.PhaseResourceWait: "#f59e0b", analyze.PhaseCompute: "#3b82f6",
	analyze.PhaseOutputWrite: "#8b5cf6", analyze.PhaseDriverOnly: "#94a3b8"}

var phaseLabels = map[analyze.Phase]string{analyze.PhaseResourceWait: "waiting for executors", analyze.PhaseCompute: "computing",
	analyze.PhaseOutputWrite: "writing output", analyze.PhaseDriverOnly: "driver only"}

type memLine struct {
	Color, Label, Points string
	Dots                 []dot
}

type dot struct{ X, Y int }

type memChart struct {
	W, H, AxisY int
	MaxLabel    string
	Source      string
	Lines       []memLine
}

// agentChart is one metric agents sent, one line per executor.
type agentChart struct {
	Title string
	Chart *memChart
}

// agentMetrics are the agent metrics the app page draws, in order.
var agentMetrics = []struct {
	metric, title string
	format        func(float64) string
}{
	{"jvm.memory.used{heap}", "JVM heap used", fmtBytes},
	{"jvm.gc.duration", "GC time (cumulative)", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "s" }},
	{"jvm.class.count", "Classes loaded", func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }},
	{"sparkdx.process.tree.memory.usage{python}", "Python workers RSS", fmtBytes},
	{"process.memory.usage", "Process RSS", fmtBytes},
}

func fmtBytes(v float64) string { return units.Bytes(int64(v)) }

type heatCell struct {
	X, Y, Wd int
	A        string
	Label    string
}

type heatRow struct {
	Y     int
	Label string
}

type heatmap struct {
	W, H  int
	Cells []heatCell
	Rows  []heatRow
}

var palette = []string{"#2f6fed", "#16a34a", "#d97706", "#dc2626", "#7c3aed", "#0891b2", "#be185d", "#4d7c0f"}

// xScale maps epoch ms in [start, start+span] to chart x.
func xScale(start, span int64) func(int64) int {
	return func(t int64) int {
		return labelW + int(float64(min(max(t-start, 0), span))*float64(chartW-labelW-10)/float64(span))
	}
}

// buildAppView computes the model-derived part of the app page; memory
// comes from the event log's executor peaks until withSamples replaces it.
func buildAppView(a *model.Attempt, res *analyze.Result, live bool, now int64) *appView {
	timeline := res.Timeline
	v := &appView{Live: live, Phases: phaseSums(timeline), Root: rootCauseOf(a, res), Figures: report.Figures(res),
		Sizing: report.MemoryLines(res.Memory)}
	start, end := a.StartTime, a.EndTime
	if end <= 0 || !a.Completed {
		// The analysis's end: the last event, or now for an application
		// still running (never the file's time, which a copy changes).
		end = max(res.EndTime, start+1)
	}
	span := max(end-start, 1)
	v.Start, v.End = start, end
	x := xScale(start, span)
	dur := make(map[[2]int]int64, len(res.Stages))
	for _, s := range res.Stages {
		dur[[2]int{s.StageID, s.AttemptID}] = s.DurationMs
	}
	for _, s := range a.Stages {
		r := newStageRow(s)
		if ms, ok := dur[[2]int{s.StageID, s.AttemptID}]; ok && s.SubmissionTime != model.NoTime {
			r.DurationMs = ms // the analysis's, as `sparkdx analyze` and Spark's UI: first task launch to completion
		}
		v.Stages = append(v.Stages, r)
	}
	v.Gantt = stageGantt(a, x, end, span)
	if v.Gantt != nil {
		for _, iv := range timeline {
			x0, x1 := x(iv.Start), x(iv.End)
			v.Gantt.Phases = append(v.Gantt.Phases, bar{X: x0, Y: 6, Width: max(x1-x0, 1), Color: phaseColors[iv.Phase],
				Label: fmt.Sprintf("%s: %s", phaseLabels[iv.Phase], durText(iv.End-iv.Start))})
		}
	}
	for _, e := range a.Executors {
		r := execRow{ID: e.ID, Host: e.Hostname(), Cores: e.TotalCores, Added: e.AddTime, Removed: e.RemoveTime,
			Tasks: e.CompletedTasks + e.FailedTasks, Failed: e.FailedTasks, Reason: e.RemoveReason}
		if e.Peak.Set {
			r.PeakHeap = e.Peak.Values[model.MetricJVMHeapMemory]
		}
		v.Executors = append(v.Executors, r)
	}
	v.Memory = drawMemory(logHeapSeries(a), "event log: JVM heap peak per executor at stage end", x)
	v.Heat = taskHeatmap(a, start, span)
	for _, q := range a.SQL {
		r := sqlRow{ID: q.ID, Desc: q.Description, Jobs: q.JobIDs, DurationMs: -1}
		if q.EndTime > 0 && q.StartTime > 0 {
			r.DurationMs = q.EndTime - q.StartTime
		}
		r.Joins = joins(q.Plan, nil)
		v.SQL = append(v.SQL, r)
	}
	for i := range res.Streaming {
		q := &res.Streaming[i]
		_, rated := q.RateRatio()
		v.Streaming = append(v.Streaming, streamRow{Name: q.Name, ID: q.ID, Batches: q.Batches, LastBatchMs: q.LastBatchMs,
			EarlyBatchMs: q.EarlyBatchMs, RecentBatchMs: q.RecentBatchMs, InputPerSec: q.InputRowsPerSecond, ProcessedPerSec: q.ProcessedRowsPerSecond,
			StateRows: q.Last.StateRows, StateMemoryBytes: q.Last.StateMemoryBytes, Exception: q.Exception,
			RecentBatchesRated: rated})
	}
	return v
}

func newStageRow(s *model.StageAttempt) stageRow {
	m := &s.Metrics
	return stageRow{StageID: s.StageID, AttemptID: s.AttemptID, Name: s.Name, Status: s.Status, NumTasks: s.NumTasks,
		Done: s.CompletedTasks, Input: m.InputBytesRead, ShuffleRead: m.ShuffleRead.RemoteBytesRead + m.ShuffleRead.LocalBytesRead,
		ShuffleWrite: m.ShuffleWrite.BytesWritten, Spill: m.DiskBytesSpilled, GC: m.JvmGcTime, DurationMs: -1}
}

// withSamples draws the agent's samples, one chart per metric.
func (v *appView) withSamples(samples []store.Sample) {
	byMetric := map[string]map[string][]pt{}
	for _, s := range samples {
		m := byMetric[s.Metric]
		if m == nil {
			m = map[string][]pt{}
			byMetric[s.Metric] = m
		}
		m[s.ExecutorID] = append(m[s.ExecutorID], pt{s.Time, s.Value})
	}
	start, end := v.Start, v.End
	for _, s := range samples { // agents may sample past the log's last event
		start, end = min(start, s.Time), max(end, s.Time)
	}
	x := xScale(start, max(end-start, 1))
	v.Agent = nil
	for _, am := range agentMetrics {
		if series := byMetric[am.metric]; len(series) > 0 {
			if c := drawSeries(series, "agent: "+am.metric, am.format, x); c != nil {
				v.Agent = append(v.Agent, agentChart{Title: am.title, Chart: c})
			}
		}
	}
}

// stageStart is when a stage attempt's bar starts: its submission, or —
// when Spark did not write that time at submission, as Spark 1.x did not
// until the stage completed — its first task's launch.
func stageStart(s *model.StageAttempt) int64 {
	if s.SubmissionTime > 0 {
		return s.SubmissionTime
	}
	return s.FirstLaunchTime
}

func stageGantt(a *model.Attempt, x func(int64) int, end, span int64) *gantt {
	stages := make([]*model.StageAttempt, 0, len(a.Stages))
	for _, s := range a.Stages {
		if stageStart(s) > 0 {
			stages = append(stages, s)
		}
	}
	if len(stages) == 0 {
		return nil
	}
	sort.SliceStable(stages, func(i, j int) bool { return stageStart(stages[i]) < stageStart(stages[j]) })
	g := &gantt{W: chartW, Span: span, LabelX: labelW, EndX: chartW - 10}
	for i, s := range stages {
		i++ // row 0 is the phase lane
		stop := s.CompletionTime
		color := "#3b82f6"
		switch {
		case stop <= 0:
			stop, color = end, "#93c5fd"
		case s.Status == "FAILED":
			color = "#dc2626"
		case s.Status == "SKIPPED":
			color = "#cbd5e1"
		}
		x0, x1 := x(stageStart(s)), x(stop)
		short := units.ShortName(fmt.Sprintf("%d: %s", s.StageID, s.Name), 28)
		g.Bars = append(g.Bars, bar{X: x0, Y: 6 + i*18, Width: max(x1-x0, 2), Color: color, Short: short,
			Label: fmt.Sprintf("stage %d.%d %s — %s, %d tasks", s.StageID, s.AttemptID, s.Name, s.Status, s.NumTasks)})
	}
	g.H = 6 + (len(stages)+1)*18 + 20
	g.AxisY = g.H - 6
	return g
}

// pt is one value at one time.
type pt struct {
	t int64
	v float64
}

// logHeapSeries is each executor's JVM heap peak at each stage end, as
// event logs record them (spark.eventLog.logStageExecutorMetrics).
func logHeapSeries(a *model.Attempt) map[string][]pt {
	series := map[string][]pt{}
	for _, s := range a.Stages {
		if s.CompletionTime <= 0 {
			continue
		}
		for _, es := range s.ExecSummary {
			if es.Peak.Set {
				series[es.ExecutorID] = append(series[es.ExecutorID], pt{s.CompletionTime, float64(es.Peak.Values[model.MetricJVMHeapMemory])})
			}
		}
	}
	return series
}

// drawMemory draws one line of bytes per executor.
func drawMemory(series map[string][]pt, source string, x func(int64) int) *memChart {
	return drawSeries(series, source, fmtBytes, x)
}

// drawSeries draws one line per executor, scaled to the largest value.
func drawSeries(series map[string][]pt, source string, format func(float64) string, x func(int64) int) *memChart {
	if len(series) == 0 {
		return nil
	}
	var maxV float64
	ids := make([]string, 0, len(series))
	for id, ps := range series {
		ids = append(ids, id)
		sort.Slice(ps, func(i, j int) bool { return ps[i].t < ps[j].t })
		for _, p := range ps {
			maxV = max(maxV, p.v)
		}
	}
	if maxV <= 0 {
		return nil // logs without executor memory metrics report zeros
	}
	sort.Strings(ids)
	c := &memChart{W: chartW, H: 160, AxisY: 154, MaxLabel: format(maxV), Source: source}
	for i, id := range ids {
		var b strings.Builder
		l := memLine{Color: palette[i%len(palette)], Label: "executor " + id}
		for _, p := range series[id] {
			y := 10 + int((maxV-p.v)*130/maxV)
			b.WriteString(strconv.Itoa(x(p.t)) + "," + strconv.Itoa(y) + " ")
			l.Dots = append(l.Dots, dot{x(p.t), y})
		}
		l.Points = b.String()
		c.Lines = append(c.Lines, l)
	}
	return c
}

const heatBuckets = 60

// taskHeatmap shades, per executor and time bucket, the share of the
// executor's task slots busy.
func taskHeatmap(a *model.Attempt, start, span int64) *heatmap {
	busy := map[string][]int64{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.LaunchTime <= 0 {
				continue
			}
			stop := t.FinishTime
			if stop == 0 {
				stop = start + span
			}
			row := busy[t.ExecutorID]
			if row == nil {
				row = make([]int64, heatBuckets)
				busy[t.ExecutorID] = row
			}
			for b := range heatBuckets {
				b0 := start + span*int64(b)/heatBuckets
				b1 := start + span*int64(b+1)/heatBuckets
				if o := min(stop, b1) - max(t.LaunchTime, b0); o > 0 {
					row[b] += o
				}
			}
		}
	}
	if len(busy) == 0 {
		return nil
	}
	ids := make([]string, 0, len(busy))
	for id := range busy {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		ni, ei := strconv.Atoi(ids[i])
		nj, ej := strconv.Atoi(ids[j])
		if ei == nil && ej == nil {
			return ni < nj
		}
		return ids[i] < ids[j]
	})
	h := &heatmap{W: chartW, H: 6 + len(ids)*18}
	cellW := (chartW - labelW - 10) / heatBuckets
	bucketMs := max(span/heatBuckets, 1)
	for i, id := range ids {
		y := 4 + i*18
		cores := int64(1)
		if e := a.Executor(id); e != nil && e.TotalCores > 0 {
			cores = int64(e.TotalCores)
		}
		h.Rows = append(h.Rows, heatRow{Y: y, Label: "executor " + id})
		for b, ms := range busy[id] {
			frac := min(float64(ms)/float64(bucketMs*cores), 1)
			h.Cells = append(h.Cells, heatCell{X: labelW + b*cellW, Y: y, Wd: cellW - 1, A: strconv.FormatFloat(0.06+0.94*frac, 'f', 2, 64),
				Label: fmt.Sprintf("executor %s: %.0f%% of %d slots busy", id, frac*100, cores)})
		}
	}
	return h
}

// joins lists the plan's join operators with their direct inputs.
func joins(n *model.SQLPlanNode, out []joinNode) []joinNode {
	if n == nil {
		return out
	}
	if strings.Contains(n.NodeName, "Join") {
		j := joinNode{Name: n.NodeName}
		for _, c := range n.Children {
			j.Inputs = append(j.Inputs, c.NodeName)
		}
		out = append(out, j)
	}
	for _, c := range n.Children {
		out = joins(c, out)
	}
	return out
}

func durText(ms int64) string { return ui.Duration(ms) }

// memorySamples returns an application's agent heap samples.
func (s *Server) memorySamples(appID string) []store.Sample {
	xs, err := s.cfg.Store.Samples(appID)
	if err != nil {
		return nil
	}
	return xs
}

// findingRow is one finding as the app page shows it, with the page it
// is on (for its links).
type findingRow struct {
	Finding
	V *appView
}

// FindingRows are the findings the page shows open (warning and
// critical) or, with info, the ones it collapses under one line: the
// finding budget (diagnose.Shown).
func (v *appView) FindingRows(info bool) []findingRow {
	var out []findingRow
	for _, f := range v.Sum.Findings {
		if (f.Severity == diagnose.Info.String()) == info {
			out = append(out, findingRow{Finding: f, V: v})
		}
	}
	return out
}

// StageHref is the page of stage id's last attempt, "" when the
// application has no such stage.
func (v *appView) StageHref(id int) string {
	att := -1
	for _, s := range v.Stages {
		if s.StageID == id {
			att = max(att, s.AttemptID)
		}
	}
	if att < 0 {
		return ""
	}
	h := fmt.Sprintf("/apps/%s/stages/%d/%d", url.PathEscape(v.Sum.ID), id, att)
	if v.Sum.AttemptID != "" {
		h += "?attempt=" + url.QueryEscape(v.Sum.AttemptID)
	}
	return h
}

package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/server/web/ui"
)

// appView is what the app page shows, computed from the model while it is
// read-locked; templates escape every string in it.
type appView struct {
	Title  string
	Live   bool
	Sum    fleet.AppSummary
	Others []fleet.AppSummary
	Agent  []agentChart // from agent samples, added per request
	Flame  *flameView   `json:"-"` // from --profiles, added per request

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
	v.Gantt = stageGantt(res, x, span)
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
	v.Memory = drawMemory(logHeapSeries(a), "event log: JVM heap peaks per executor at task and stage ends", x)
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
func (s *Pages) memorySamples(appID string) []store.Sample {
	xs, err := s.cfg.Store.Samples(appID)
	if err != nil {
		return nil
	}
	return xs
}

// findingRow is one finding as the app page shows it, with the page it
// is on (for its links).
type findingRow struct {
	fleet.Finding
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

// StoredView is the app page's data of a finished attempt's analysis, as
// ingest stores it (the "page" view) for the app page to read back.
func StoredView(a *model.Attempt, res *analyze.Result, now int64) ([]byte, error) {
	return json.Marshal(buildAppView(a, res, false, now))
}

// Package reportv1 owns the sparkdx.report/v1 document: what sparkdx found
// about one application attempt, as `sparkdx analyze --format json` writes
// it and serve, the Delta tables and diff read it. Build turns an analysis
// into the document; the renderers (internal/report) only show it.
//
// The JSON field names are a public contract (DESIGN.md; checked against
// docs/schema/sparkdx.report.v1.json): a key never changes meaning, what
// is new goes in a new key or object.
package reportv1

import (
	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/tune"
)

// Schema is the JSON report's schema id.
const Schema = "sparkdx.report/v1"

// Report is the sparkdx.report/v1 document. The keys of DESIGN.md are
// stable; what was added later lives in new objects (criticalPath, whatIf,
// sql) so that no existing key changes meaning.
type Report struct {
	Schema       string               `json:"schema"`
	Log          Log                  `json:"log"`
	App          App                  `json:"app"`
	Headline     *Headline            `json:"headline"`
	Phases       analyze.Phases       `json:"phases"`
	Stages       []Stage              `json:"stages"`
	Executors    []Executor           `json:"executors"`
	Findings     []diagnose.Finding   `json:"findings"`
	CriticalPath analyze.CriticalPath `json:"criticalPath"`
	WhatIf       []analyze.WhatIf     `json:"whatIf"`
	SQL          []SQLExecution       `json:"sql"`
	// Analyzer detail beyond the stable keys, in objects of their own.
	StageDetails    []StageDetail    `json:"stageDetails"`
	ExecutorDetails []ExecutorDetail `json:"executorDetails"`
	Timeline        []Interval       `json:"timeline"`
	Outcome         Outcome          `json:"outcome"`
	Plugins         []Plugin         `json:"plugins"` // accelerators: RAPIDS (GPU), Photon
	// Config is the properties a person tunes, as the app ran with them
	// (Spark's default where it set none): what diff compares.
	Config []analyze.Setting `json:"config"`
	// Streaming summarises each Structured Streaming query run; Memory
	// sizes the executors against their peaks (null without peaks).
	Streaming []StreamingQuery `json:"streaming"`
	Memory    *Memory          `json:"memory"`
	// ResourceCost is the core-hours and memory GB-hours the attempt
	// held, per job and stage, and what its findings wasted (money once
	// priced: cost.Cost.Price).
	ResourceCost *cost.Cost `json:"resourceCost"`
	// Tuning is what sparkdx tune recommends for this attempt.
	Tuning *tune.Plan `json:"tuning"`
	// Commits are the writes whose committer's summary (_SUCCESS) was
	// read, with its S3 statistics; absent when none was.
	Commits []Commit `json:"commits,omitempty"`
}

// SQLExecution is one SQL query's plan with the rows and time per node.
type SQLExecution struct {
	ID          int64     `json:"id"`
	Description string    `json:"description"`
	DurationMs  int64     `json:"durationMs"`
	Nodes       []SQLNode `json:"nodes"`
}

// SQLNode is one plan node; rows is -1 when the node has no row metric.
type SQLNode struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Rows     int64  `json:"rows"`
	TimeMs   int64  `json:"timeMs"`
	Children []int  `json:"children"`
}

// Log describes the input read.
type Log struct {
	Path          string         `json:"path"`
	Codec         string         `json:"codec"`
	Bytes         int64          `json:"bytes"`
	Events        int64          `json:"events"`
	BadLines      int64          `json:"badLines"`
	UnknownEvents map[string]int `json:"unknownEvents"`
	Truncated     bool           `json:"truncated"`
}

// App is the application attempt.
type App struct {
	ID           string `json:"id"`
	AttemptID    string `json:"attemptId"`
	Name         string `json:"name"`
	User         string `json:"user"`
	SparkVersion string `json:"sparkVersion"`
	Master       string `json:"master"`
	StartTime    int64  `json:"startTime"`
	EndTime      *int64 `json:"endTime"`    // null while running
	DurationMs   int64  `json:"durationMs"` // the analysis's: to the last event when the log has no end
	Completed    bool   `json:"completed"`
}

// Quantiles are task duration quantiles in ms.
type Quantiles struct {
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
	Max int64 `json:"max"`
}

// Skew compares the largest task with the median one.
type Skew struct {
	DurationMaxOverMedian float64 `json:"durationMaxOverMedian"`
	BytesMaxOverMedian    float64 `json:"bytesMaxOverMedian"`
}

// Stage is one stage attempt.
type Stage struct {
	StageID            int       `json:"stageId"`
	AttemptID          int       `json:"attemptId"`
	Name               string    `json:"name"`
	Status             string    `json:"status"`
	NumTasks           int       `json:"numTasks"`
	DurationMs         int64     `json:"durationMs"` // first task launch to completion, as Spark's UI
	QueuedMs           int64     `json:"queuedMs"`   // submission to first task launch
	TaskDurationMs     Quantiles `json:"taskDurationMs"`
	GCTimeMs           int64     `json:"gcTimeMs"`
	InputBytes         int64     `json:"inputBytes"`
	OutputBytes        int64     `json:"outputBytes"`
	ShuffleReadBytes   int64     `json:"shuffleReadBytes"`
	ShuffleWriteBytes  int64     `json:"shuffleWriteBytes"`
	FetchWaitMs        int64     `json:"fetchWaitMs"`
	MemorySpilledBytes int64     `json:"memorySpilledBytes"`
	DiskSpilledBytes   int64     `json:"diskSpilledBytes"`
	Skew               Skew      `json:"skew"`
}

// Executor is one executor or the driver.
type Executor struct {
	ID                 string `json:"id"`
	Host               string `json:"host"`
	Cores              int    `json:"cores"`
	AddedTime          int64  `json:"addedTime"`
	RemovedTime        *int64 `json:"removedTime"` // null while alive
	RemovedReason      string `json:"removedReason"`
	PeakJVMHeapBytes   int64  `json:"peakJvmHeapBytes"`
	PeakPythonRSSBytes int64  `json:"peakPythonRssBytes"`
	TaskTimeMs         int64  `json:"taskTimeMs"`
	GCTimeMs           int64  `json:"gcTimeMs"`
}

// Build fills a report from a replayed attempt, its analysis, the
// findings and what was read.
func Build(a *model.Attempt, res *analyze.Result, findings []diagnose.Finding, log Log) *Report {
	r := &Report{Schema: Schema, Log: log, Stages: []Stage{}, Executors: []Executor{},
		Phases: res.Phases, Findings: findings, CriticalPath: res.CriticalPath, WhatIf: res.WhatIf,
		SQL: []SQLExecution{}, Headline: headline(res.Headline), Config: res.Settings}
	if r.Config == nil {
		r.Config = []analyze.Setting{}
	}
	r.Streaming, r.Memory = streamingQueries(res.Streaming), memory(res.Memory)
	r.ResourceCost = cost.Of(a, res)
	r.ResourceCost.AddFindings(r.Findings)
	r.Tuning = tune.Recommend(a, res, r.Findings)
	if r.Findings == nil {
		r.Findings = []diagnose.Finding{}
	}
	if r.WhatIf == nil {
		r.WhatIf = []analyze.WhatIf{}
	}
	if r.Log.UnknownEvents == nil {
		r.Log.UnknownEvents = map[string]int{}
	}
	r.App = App{ID: a.AppID, AttemptID: a.AttemptID, Name: a.AppName, User: a.SparkUser,
		SparkVersion: a.SparkVersion, StartTime: a.StartTime, EndTime: optTime(a.EndTime),
		DurationMs: res.DurationMs, Completed: a.Completed}
	for _, p := range a.Env.SparkProperties {
		if p[0] == "spark.master" {
			r.App.Master = p[1]
		}
	}
	for i := range res.Stages {
		r.Stages = append(r.Stages, stage(&res.Stages[i]))
	}
	// Task and GC time per executor come from the tasks themselves: the
	// History Server's totals for the driver are the application's.
	for i := range res.Executors {
		e := &res.Executors[i]
		r.Executors = append(r.Executors, Executor{ID: e.ID, Host: e.Host, Cores: e.Cores, AddedTime: e.AddedTime,
			RemovedTime: optTime(e.RemovedTime), RemovedReason: e.RemovedReason,
			PeakJVMHeapBytes: e.PeakJVMHeapBytes, PeakPythonRSSBytes: e.PeakPythonRSSBytes,
			TaskTimeMs: e.BusyMs, GCTimeMs: e.GCTimeMs})
	}
	for i := range res.SQL {
		r.SQL = append(r.SQL, sqlExecution(&res.SQL[i]))
	}
	r.StageDetails = make([]StageDetail, 0, len(res.Stages))
	for i := range res.Stages {
		r.StageDetails = append(r.StageDetails, stageDetail(&res.Stages[i]))
	}
	r.ExecutorDetails = make([]ExecutorDetail, 0, len(res.Executors))
	for i := range res.Executors {
		r.ExecutorDetails = append(r.ExecutorDetails, executorDetail(&res.Executors[i]))
	}
	r.Outcome = OutcomeOf(res)
	r.Plugins = pluginsOf(res)
	r.Timeline = make([]Interval, 0, len(res.Timeline))
	for _, iv := range res.Timeline {
		r.Timeline = append(r.Timeline, Interval{Start: iv.Start, End: iv.End, Phase: string(iv.Phase)})
	}
	return r
}

func stage(s *analyze.Stage) Stage {
	return Stage{StageID: s.StageID, AttemptID: s.AttemptID, Name: s.Name, Status: s.Status, NumTasks: s.NumTasks,
		DurationMs: s.DurationMs, QueuedMs: s.QueuedMs, TaskDurationMs: Quantiles(s.TaskDurationMs), GCTimeMs: s.GCTimeMs,
		InputBytes: s.InputBytes, OutputBytes: s.OutputBytes, ShuffleReadBytes: s.ShuffleReadBytes,
		ShuffleWriteBytes: s.ShuffleWriteBytes, FetchWaitMs: s.FetchWaitMs, MemorySpilledBytes: s.MemorySpilledBytes,
		DiskSpilledBytes: s.DiskSpilledBytes,
		Skew:             Skew{DurationMaxOverMedian: s.SkewDuration, BytesMaxOverMedian: s.SkewBytes}}
}

func sqlExecution(x *analyze.SQLExecution) SQLExecution {
	out := SQLExecution{ID: x.ID, Description: x.Description, Nodes: make([]SQLNode, 0, len(x.Nodes))}
	if x.EndTime > 0 && x.StartTime > 0 && x.EndTime >= x.StartTime {
		out.DurationMs = x.EndTime - x.StartTime
	}
	for _, n := range x.Nodes {
		c := n.Children
		if c == nil {
			c = []int{}
		}
		out.Nodes = append(out.Nodes, SQLNode{ID: n.ID, Name: n.Name, Rows: n.Rows, TimeMs: n.TimeMs, Children: c})
	}
	return out
}

func optTime(t int64) *int64 {
	if t == model.NoTime {
		return nil
	}
	return &t
}

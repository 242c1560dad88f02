// Package report renders what sparkdx found about an application: the
// stable JSON document ("sparkdx.report/v1") and, later, text and HTML.
package report

import (
	"encoding/json"
	"io"
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Schema is the JSON report's schema id.
const Schema = "sparkdx.report/v1"

// Report is the sparkdx.report/v1 document. Phases and findings are added
// by the analyzer; this holds the parts read straight from the model.
type Report struct {
	Schema    string     `json:"schema"`
	Log       Log        `json:"log"`
	App       App        `json:"app"`
	Stages    []Stage    `json:"stages"`
	Executors []Executor `json:"executors"`
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
	EndTime      *int64 `json:"endTime"` // null while running
	DurationMs   int64  `json:"durationMs"`
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
	DurationMs         int64     `json:"durationMs"`
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

// Build fills a report from a replayed attempt and what was read.
func Build(a *model.Attempt, log Log) *Report {
	r := &Report{Schema: Schema, Log: log, Stages: []Stage{}, Executors: []Executor{}}
	if r.Log.UnknownEvents == nil {
		r.Log.UnknownEvents = map[string]int{}
	}
	r.App = App{ID: a.AppID, AttemptID: a.AttemptID, Name: a.AppName, User: a.SparkUser,
		SparkVersion: a.SparkVersion, StartTime: a.StartTime, EndTime: optTime(a.EndTime),
		DurationMs: a.Duration(), Completed: a.Completed}
	for _, p := range a.Env.SparkProperties {
		if p[0] == "spark.master" {
			r.App.Master = p[1]
		}
	}
	stages := append([]*model.StageAttempt(nil), a.Stages...)
	sort.Slice(stages, func(i, j int) bool {
		if stages[i].StageID != stages[j].StageID {
			return stages[i].StageID < stages[j].StageID
		}
		return stages[i].AttemptID < stages[j].AttemptID
	})
	for _, s := range stages {
		r.Stages = append(r.Stages, stage(s))
	}
	// Task and GC time per executor come from the tasks themselves: the
	// History Server's totals for the driver are the application's.
	taskTime, gcTime := map[string]int64{}, map[string]int64{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime != 0 {
				taskTime[t.ExecutorID] += t.FinishTime - t.LaunchTime
			}
			if t.HasMetrics {
				gcTime[t.ExecutorID] += t.Metrics.JvmGcTime
			}
		}
	}
	for _, e := range a.Executors {
		x := Executor{ID: e.ID, Host: e.Hostname(), Cores: e.TotalCores, AddedTime: e.AddTime,
			RemovedTime: optTime(e.RemoveTime), RemovedReason: e.RemoveReason,
			TaskTimeMs: taskTime[e.ID], GCTimeMs: gcTime[e.ID]}
		if e.Peak.Set {
			x.PeakJVMHeapBytes = e.Peak.Values[model.MetricJVMHeapMemory]
			x.PeakPythonRSSBytes = e.Peak.Values[model.MetricProcessTreePythonRSSMemory]
		}
		r.Executors = append(r.Executors, x)
	}
	return r
}

func stage(s *model.StageAttempt) Stage {
	m := &s.Metrics
	out := Stage{StageID: s.StageID, AttemptID: s.AttemptID, Name: s.Name, Status: s.Status, NumTasks: s.NumTasks,
		GCTimeMs: m.JvmGcTime, InputBytes: m.InputBytesRead, OutputBytes: m.OutputBytesWritten,
		ShuffleReadBytes: m.ShuffleReadBytes(), ShuffleWriteBytes: m.ShuffleWrite.BytesWritten,
		FetchWaitMs: m.ShuffleRead.FetchWaitTime, MemorySpilledBytes: m.MemoryBytesSpilled,
		DiskSpilledBytes: m.DiskBytesSpilled}
	if s.SubmissionTime != model.NoTime && s.CompletionTime != model.NoTime {
		out.DurationMs = s.CompletionTime - s.SubmissionTime
	}
	var durs, bytes []int64
	for _, t := range s.Tasks {
		if !t.Successful() {
			continue
		}
		durs = append(durs, t.FinishTime-t.LaunchTime)
		bytes = append(bytes, t.Metrics.InputBytesRead+t.Metrics.ShuffleReadBytes())
	}
	if len(durs) == 0 {
		return out
	}
	sortInt64(durs)
	sortInt64(bytes)
	out.TaskDurationMs = Quantiles{P50: pick(durs, 0.5), P95: pick(durs, 0.95), Max: durs[len(durs)-1]}
	out.Skew = Skew{DurationMaxOverMedian: ratio(durs[len(durs)-1], pick(durs, 0.5)),
		BytesMaxOverMedian: ratio(bytes[len(bytes)-1], pick(bytes, 0.5))}
	return out
}

func optTime(t int64) *int64 {
	if t == model.NoTime {
		return nil
	}
	return &t
}

func sortInt64(xs []int64) { sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] }) }

// pick is the nearest-rank quantile of sorted values.
func pick(sorted []int64, q float64) int64 {
	i := int(q * float64(len(sorted)))
	return sorted[min(i, len(sorted)-1)]
}

func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteJSON writes reports: one object for one log, an array for several.
func WriteJSON(w io.Writer, reports []*Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if len(reports) == 1 {
		return enc.Encode(reports[0])
	}
	return enc.Encode(reports)
}

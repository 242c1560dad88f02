package prom

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

// StageKind is the stage class metrics are grouped by: a stage either
// writes the job's output or computes (reads, shuffles, aggregates).
type StageKind string

// Stage kinds.
const (
	KindCompute StageKind = "compute"
	KindWrite   StageKind = "write"
)

// taskBuckets are the upper bounds (seconds) of the task-duration
// histograms: Spark tasks run from milliseconds (tiny tasks) to hours.
var taskBuckets = [...]float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}

// Histogram is a cumulative task-duration histogram in seconds.
type Histogram struct {
	Count   uint64
	Sum     float64
	Buckets [len(taskBuckets)]uint64 // cumulative counts at taskBuckets
}

func (h *Histogram) observe(sec float64) {
	h.Count++
	h.Sum += sec
	for i, ub := range taskBuckets {
		if sec <= ub {
			h.Buckets[i]++
		}
	}
}

// App is one application attempt as the collector reports it. Build it
// with NewApp when the analysis finishes (or is refreshed for a running
// app); it keeps what the metrics need, not the replayed model.
type App struct {
	Name, User, SparkVersion string
	Result                   *analyze.Result
	Findings                 []diagnose.Finding
	// TaskDurations holds successful task attempts' durations by stage kind.
	TaskDurations map[StageKind]*Histogram
	// Cost is the core-hours and memory GB-hours the attempt held.
	Cost *cost.Cost
	// JobDurations holds ended jobs' durations (submission to completion)
	// by how they ended, "succeeded" or "failed": a long-running driver's
	// trend of job time, as its jobs end.
	JobDurations map[string]*Histogram
	// Context names the orchestrator run and the trace the app belongs
	// to: NewApp reads the trace, the caller sets the run.
	Context Context
	// Alloc is the executor allocation settings beside Result.Config.
	Alloc Alloc
}

// jobStates are the JobDurations keys, the status label's values.
var jobStates = [...]string{"succeeded", "failed"}

// Running tells whether the attempt has not ended yet.
func (a *App) Running() bool { return !a.Result.Completed }

// NewApp summarises one analyzed attempt for the collector.
func NewApp(at *model.Attempt, r *analyze.Result, findings []diagnose.Finding) App {
	app := App{Name: at.AppName, User: at.SparkUser, SparkVersion: at.SparkVersion, Result: r,
		Findings: findings, TaskDurations: map[StageKind]*Histogram{KindCompute: {}, KindWrite: {}},
		JobDurations: jobDurations(at.Jobs), Cost: cost.Of(at, r), Alloc: allocOf(at.Env.SparkProperties)}
	for _, kv := range at.Env.SparkProperties {
		if kv[0] == propTraceParent {
			app.Context.TraceID = traceID(kv[1])
		}
	}
	kinds := make(map[[2]int]StageKind, len(r.Stages))
	for i := range r.Stages {
		kinds[[2]int{r.Stages[i].StageID, r.Stages[i].AttemptID}] = stageKind(&r.Stages[i])
	}
	for _, s := range at.Stages {
		h := app.TaskDurations[kinds[[2]int{s.StageID, s.AttemptID}]]
		if h == nil {
			h = app.TaskDurations[KindCompute]
		}
		for _, t := range s.Tasks {
			if t.Status() != model.TaskSuccess || t.FinishTime <= 0 || t.LaunchTime <= 0 {
				continue
			}
			h.observe(float64(t.FinishTime-t.LaunchTime) / 1000)
		}
	}
	return app
}

// jobDurations sorts the ended jobs' durations by how they ended.
func jobDurations(jobs []*model.Job) map[string]*Histogram {
	out := map[string]*Histogram{jobStates[0]: {}, jobStates[1]: {}}
	for _, j := range jobs {
		if j.SubmissionTime == model.NoTime || j.CompletionTime == model.NoTime {
			continue
		}
		switch j.Status {
		case model.JobSucceeded:
			out[jobStates[0]].observe(float64(model.Span(j.SubmissionTime, j.CompletionTime)) / 1000)
		case model.JobFailed:
			out[jobStates[1]].observe(float64(model.Span(j.SubmissionTime, j.CompletionTime)) / 1000)
		}
	}
	return out
}

func stageKind(s *analyze.Stage) StageKind {
	if s.IsWrite {
		return KindWrite
	}
	return KindCompute
}

// kindStats sums the stages of one kind.
type kindStats struct {
	stages, failed                   int
	taskSec, gcSec, deserSec, serSec float64
	fetchWaitSec, shuffleWriteSec    float64
	input, output, shRead, shWrite   int64
	memSpill, diskSpill              int64
	maxSkewDuration, maxSkewBytes    float64
}

func sumKinds(r *analyze.Result) map[StageKind]*kindStats {
	out := map[StageKind]*kindStats{KindCompute: {}, KindWrite: {}}
	for i := range r.Stages {
		s := &r.Stages[i]
		k := out[stageKind(s)]
		k.stages++
		if s.Status == model.StageFailed {
			k.failed++
		}
		k.taskSec += float64(s.TaskTimeMs) / 1000
		k.gcSec += float64(s.GCTimeMs) / 1000
		k.deserSec += float64(s.DeserializeMs) / 1000
		k.serSec += float64(s.SerializeMs) / 1000
		k.fetchWaitSec += float64(s.FetchWaitMs) / 1000
		k.shuffleWriteSec += float64(s.ShuffleWriteTimeNs) / 1e9
		k.input += s.InputBytes
		k.output += s.OutputBytes
		k.shRead += s.ShuffleReadBytes
		k.shWrite += s.ShuffleWriteBytes
		k.memSpill += s.MemorySpilledBytes
		k.diskSpill += s.DiskSpilledBytes
		k.maxSkewDuration = max(k.maxSkewDuration, s.SkewDuration)
		k.maxSkewBytes = max(k.maxSkewBytes, s.SkewBytes)
	}
	return out
}

// topExecutors keeps at most n executors, the driver first, then by peak
// JVM heap: the ones a memory view needs, with bounded cardinality.
func topExecutors(es []analyze.Executor, n int) []*analyze.Executor {
	out := make([]*analyze.Executor, 0, len(es))
	for i := range es {
		out = append(out, &es[i])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].ID == "driver") != (out[j].ID == "driver") {
			return out[i].ID == "driver"
		}
		return out[i].PeakJVMHeapBytes > out[j].PeakJVMHeapBytes
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

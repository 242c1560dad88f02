package scenario

import (
	"fmt"
	"math"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// Fact is a number that proves the scenario's behaviour happened in the
// log, whatever the rules make of it: the spill spilled, the skewed task
// was long, the executor was lost. A fact that does not hold means the
// workload no longer produces its behaviour.
type Fact struct {
	Metric string `json:"metric"`
	// Stage, for a stage metric, is a substring of the stage's name; the
	// largest value over matching stages counts ("" for every stage).
	Stage string   `json:"stage,omitempty"`
	Min   float64  `json:"min"`
	Max   *float64 `json:"max,omitempty"`
}

// stageMetrics are the stage metrics a fact can name.
var stageMetrics = map[string]func(s *analyze.Stage) float64{
	"memorySpilledBytes": func(s *analyze.Stage) float64 { return float64(s.MemorySpilledBytes) },
	"diskSpilledBytes":   func(s *analyze.Stage) float64 { return float64(s.DiskSpilledBytes) },
	"skewDuration":       func(s *analyze.Stage) float64 { return s.SkewDuration },
	"failedTasks":        func(s *analyze.Stage) float64 { return float64(s.Failed) },
	"fetchFailures":      func(s *analyze.Stage) float64 { return float64(s.FetchFailures) },
	"speculativeTasks":   func(s *analyze.Stage) float64 { return float64(s.SpeculativeTasks) },
	"numTasks":           func(s *analyze.Stage) float64 { return float64(s.NumTasks) },
	"hosts":              func(s *analyze.Stage) float64 { return float64(len(s.Hosts)) },
	"durationMs":         func(s *analyze.Stage) float64 { return float64(s.DurationMs) },
	"taskDurationP50Ms":  func(s *analyze.Stage) float64 { return float64(s.TaskDurationMs.P50) },
	"resultBytes":        func(s *analyze.Stage) float64 { return float64(s.ResultBytes) },
	"outputRecords":      func(s *analyze.Stage) float64 { return float64(s.OutputRecords) },
	"gcShare": func(s *analyze.Stage) float64 {
		if s.RunTimeTotalMs == 0 {
			return 0
		}
		return float64(s.GCShareMs) / float64(s.RunTimeTotalMs)
	},
}

// appMetrics are the application metrics a fact can name.
var appMetrics = map[string]func(d *Diagnosis) float64{
	"firstExecutorDelayMs": func(d *Diagnosis) float64 { return float64(d.Result.Phases.FirstExecutorDelayMs) },
	// The share of the wall time in resource wait (1: nothing but waiting).
	"resourceWaitShare": func(d *Diagnosis) float64 { return d.Result.Phases.Ratio(analyze.PhaseResourceWait) },
	"failedJobs": func(d *Diagnosis) float64 {
		n := 0
		for _, j := range d.Result.Jobs {
			if j.Status == "FAILED" {
				n++
			}
		}
		return float64(n)
	},
	"executorsLost": func(d *Diagnosis) float64 {
		n := 0
		for _, e := range d.Result.Executors {
			if e.Loss.FailedTasks > 0 || (e.Loss.Cause != analyze.CauseNone && e.Loss.Cause != analyze.CauseDriver) {
				n++
			}
		}
		return float64(n)
	},
	// Executors the log saw registered, and those the driver removed
	// (dynamic allocation's idle timeout, or a kill it asked for).
	"executorsAdded": func(d *Diagnosis) float64 {
		n := 0
		for _, e := range d.Attempt.Executors {
			if e.ID != "driver" && e.AddTime > 0 {
				n++
			}
		}
		return float64(n)
	},
	// Removed while the application ran on: before its last job began,
	// so not the removals of its end.
	"executorsRemovedBeforeLastJob": func(d *Diagnosis) float64 {
		jobs := d.Attempt.Jobs
		if len(jobs) == 0 {
			return 0
		}
		last := jobs[len(jobs)-1].SubmissionTime
		n := 0
		for _, e := range d.Attempt.Executors {
			if e.ID != "driver" && e.RemoveTime > 0 && e.RemoveTime < last {
				n++
			}
		}
		return float64(n)
	},
	"peakPythonRssBytes": func(d *Diagnosis) float64 {
		var m int64
		for _, e := range d.Result.Executors {
			m = max(m, e.PeakPythonRSSBytes)
		}
		return float64(m)
	},
	"idleCoreShare": func(d *Diagnosis) float64 {
		var busy, avail float64
		for _, e := range d.Result.Executors {
			if e.ID == "driver" {
				continue
			}
			busy += float64(e.BusyMs)
			avail += float64(e.LifetimeMs) * float64(e.Cores)
		}
		if avail == 0 {
			return 0
		}
		return 1 - busy/avail
	},
	"maxJoinRows": func(d *Diagnosis) float64 {
		var m int64
		for _, q := range d.Result.SQL {
			for _, n := range q.Nodes {
				if strings.Contains(n.Name, "Join") {
					m = max(m, n.Rows)
				}
			}
		}
		return float64(m)
	},
	// 1 when the finding named the application's root cause blames an
	// OutOfMemoryError: a task's (task-failures) or, when the executor
	// JVM died before its task could report it, the executor's loss with
	// exit code 52 (executor-lost, cause jvm-oom). Which of the two
	// Spark logs is a race between the task's failure report and the
	// JVM's exit.
	"rootCauseOOM": func(d *Diagnosis) float64 {
		for _, f := range d.Findings {
			if fmt.Sprint(f.Evidence["rootCause"]) != "true" {
				continue
			}
			if strings.Contains(fmt.Sprint(f.Evidence["exception"]), "OutOfMemoryError") ||
				fmt.Sprint(f.Evidence["cause"]) == "jvm-oom" {
				return 1
			}
		}
		return 0
	},
	// The most pairs of rows a cartesian or nested-loop join examined:
	// the product of its inputs' rows.
	"maxJoinPairs": func(d *Diagnosis) float64 {
		var m float64
		for _, q := range d.Result.SQL {
			for _, n := range q.Nodes {
				m = max(m, float64(n.Pairs))
			}
		}
		return m
	},
	"streamingBatches": func(d *Diagnosis) float64 {
		n := 0
		for _, q := range d.Attempt.Streaming {
			n += len(q.Progress)
		}
		return float64(n)
	},
	"sqlExecutions": func(d *Diagnosis) float64 { return float64(len(d.Result.SQL)) },
	"stages":        func(d *Diagnosis) float64 { return float64(len(d.Result.Stages)) },
	// Stage attempts that ran a task and lasted under a second.
	"subSecondStages": func(d *Diagnosis) float64 {
		n := 0
		for i := range d.Result.Stages {
			if s := &d.Result.Stages[i]; s.Attempts > 0 && s.DurationMs < 1000 {
				n++
			}
		}
		return float64(n)
	},
	// The process ÷ input rate of the slowest and the fastest streaming
	// query measured over enough batches to judge (analyze.StreamingQuery).
	"streamingSlowestRateRatio": func(d *Diagnosis) float64 { return streamingRateRatio(d, math.Min) },
	"streamingFastestRateRatio": func(d *Diagnosis) float64 { return streamingRateRatio(d, math.Max) },
}

func knownMetric(name string) bool {
	_, stage := stageMetrics[name]
	_, app := appMetrics[name]
	return stage || app
}

// value is the fact's metric in d, and whether anything matched.
func (f Fact) value(d *Diagnosis) (float64, bool) {
	if get, ok := appMetrics[f.Metric]; ok {
		return get(d), true
	}
	get := stageMetrics[f.Metric]
	v, found := 0.0, false
	for i := range d.Result.Stages {
		s := &d.Result.Stages[i]
		if strings.Contains(s.Name, f.Stage) {
			v, found = max(v, get(s)), true
		}
	}
	return v, found
}

func (d *Diagnosis) holds(f Fact) Outcome {
	what := fmt.Sprintf("%s ≥ %g", f.Metric, f.Min)
	if f.Max != nil {
		what += fmt.Sprintf(" and ≤ %g", *f.Max)
	}
	if f.Stage != "" {
		what += fmt.Sprintf(" on a stage named %q", f.Stage)
	}
	v, found := f.value(d)
	o := Outcome{What: "fact: " + what, Met: found && v >= f.Min && (f.Max == nil || v <= *f.Max)}
	if !o.Met {
		o.Detail = fmt.Sprintf("got %g (matched: %v)", v, found)
	}
	return o
}

// streamingRateRatio folds pick over the process ÷ input rates of the
// queries with enough recent batches; -1 when there is none.
func streamingRateRatio(d *Diagnosis, pick func(a, b float64) float64) float64 {
	v := -1.0
	for _, q := range d.Result.Streaming {
		r, ok := q.RateRatio()
		if !ok {
			continue
		}
		if v < 0 {
			v = r
		}
		v = pick(v, r)
	}
	return v
}

package analyze

import (
	"strconv"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Headline is an application's key numbers, each computed here once and
// shown as it is by every view — the text and HTML reports, the JSON
// report's "headline", serve's app and fleet pages and /metrics — with
// its denominator named beside it. A number the log does not give is
// absent (nil), never a stand-in such as -1.
type Headline struct {
	// DurationMs is the wall time: application start to end, or to its
	// last event when the log has no end (to now while it runs).
	DurationMs int64

	// TaskTimeMs is Σ launch-to-finish of every finished task attempt;
	// CoreTimeMs the executor core time the application held (Σ cores ×
	// lifetime, CoreTimeMs()); CoreTimeUsed is TaskTimeMs ÷ CoreTimeMs,
	// "core time used".
	TaskTimeMs   int64
	CoreTimeMs   int64
	CoreTimeUsed float64

	// GCTimeMs is Σ over finished task attempts of their JVM GC time,
	// each capped at the attempt's run time (the JVM's GC time is the
	// executor's, other tasks' included); RunTimeMs is Σ executor run
	// time; GCShare is GCTimeMs ÷ RunTimeMs. The executor table's GC
	// times are the same sums per executor (Executor.GCShareMs).
	GCTimeMs  int64
	RunTimeMs int64
	GCShare   float64
	// CPUTimeMs is Σ executor CPU time; CPUShare CPUTimeMs ÷ RunTimeMs.
	// Both are 0 for logs before Spark 2.1, which record no CPU time.
	CPUTimeMs int64
	CPUShare  float64

	Tasks TaskCounts

	MaxExecutors int // most executors alive at once
	MaxCores     int // most executor cores alive at once

	// ExitCode is the application's exit code when the log records one
	// (SparkListenerApplicationEnd's, Spark 4); nil otherwise.
	ExitCode *int
}

// TaskCounts counts task attempts, each attempt once (a task retried
// three times is four attempts). Launched is every attempt the log shows
// (what serve's fleet lists as tasks); Finished the attempts with an end,
// which are Succeeded + Failed + Killed; Unfinished the attempts with no
// end in the log (running when it stops, or never reported: the
// application or its executor went away first). Speculative counts the
// speculative copies among Launched.
type TaskCounts struct {
	Launched    int
	Finished    int
	Succeeded   int
	Failed      int // ended in failure, not counting killed
	Killed      int // killed: a speculation race lost, a job cancelled, a commit denied
	Unfinished  int
	Speculative int
}

// headline sums the result's stages and capacity into its key numbers.
func headline(a *model.Attempt, r *Result) Headline {
	h := Headline{DurationMs: r.DurationMs, CoreTimeMs: r.CoreTimeMs(), ExitCode: a.ExitCode,
		MaxExecutors: r.CriticalPath.MaxExecutors, MaxCores: r.CriticalPath.MaxCores}
	for i := range r.Stages {
		s := &r.Stages[i]
		h.TaskTimeMs += s.TaskTimeMs
		h.GCTimeMs += s.GCShareMs
		h.RunTimeMs += s.RunTimeTotalMs
		h.CPUTimeMs += s.CPUTimeMs
		h.Tasks.Finished += s.Attempts
		h.Tasks.Succeeded += s.Succeeded
		h.Tasks.Failed += s.Failed
		h.Tasks.Killed += s.Killed
		h.Tasks.Speculative += s.SpeculativeTasks
	}
	for _, s := range a.Stages {
		h.Tasks.Launched += s.TaskCount()
	}
	h.Tasks.Unfinished = max(h.Tasks.Launched-h.Tasks.Finished, 0)
	h.CoreTimeUsed = min(Ratio(h.TaskTimeMs, h.CoreTimeMs), 1)
	h.GCShare = Ratio(h.GCTimeMs, h.RunTimeMs)
	h.CPUShare = Ratio(h.CPUTimeMs, h.RunTimeMs)
	return h
}

// NoExitCode is Loss.ExitCode when the log gives none.
const NoExitCode = -1

// ExitCodeText says an executor's exit code as every view does: "with
// code 52", or "with no exit code in the log" — never a made-up -1.
func (l Loss) ExitCodeText() string {
	if l.ExitCode == NoExitCode {
		return "with no exit code in the log"
	}
	return "with code " + strconv.Itoa(l.ExitCode)
}

// ExitCodeOrNil is the exit code for JSON: nil (null) when the log gives
// none.
func (l Loss) ExitCodeOrNil() any {
	if l.ExitCode == NoExitCode {
		return nil
	}
	return l.ExitCode
}

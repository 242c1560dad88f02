package analyze

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// FailureCause is one root cause of failed task attempts: the failed
// attempts whose errors have the same end reason, exception class, message
// shape (numbers and hex ids aside) and user frame.
type FailureCause struct {
	Error  TaskError `json:"error"`
	Reason string    `json:"reason"` // Spark's end reason: ExceptionFailure, ExecutorLostFailure, FetchFailed, …
	// LostExecutor is, for FetchFailed attempts, the executor whose loss
	// the fetch failures follow: the one they fetched from when it had
	// been lost, or — for "Missing an output location", which names no
	// executor — the last executor lost before them. The loss is the root
	// cause, the fetch failures its consequence.
	LostExecutor string `json:"lostExecutor,omitempty"`
	// FetchFrom are, for FetchFailed attempts, the executors whose shuffle
	// output could not be fetched.
	FetchFrom []string `json:"fetchFrom,omitempty"`
	// Shutdown is true when every attempt failed after the SparkContext
	// began to stop, or with an error its stopping raises ("Filesystem
	// closed", "SparkContext was shut down"): a consequence of the stop,
	// never a root cause.
	Shutdown bool `json:"shutdown,omitempty"`

	Attempts    int      `json:"attempts"`    // failed task attempts
	Tasks       int      `json:"tasks"`       // distinct tasks (stage, index) with such an attempt
	Recovered   int      `json:"recovered"`   // of Tasks, those that later succeeded
	MaxAttempts int      `json:"maxAttempts"` // the most attempts one task failed with it
	StageIDs    []int    `json:"stageIds"`
	ExecutorIDs []string `json:"executorIds"`
	Hosts       []string `json:"hosts"`
	FirstTime   int64    `json:"firstTime"` // the first such attempt's end
	WastedMs    int64    `json:"wastedMs"`  // Σ duration of the failed attempts: task time lost
	// DelayMs is the most one task was held back: the longest Σ of one
	// task's failed attempts, which its successful attempt (or the abort)
	// came after.
	DelayMs int64 `json:"delayMs"`
	// FailedStages and FailedJobs are the stages aborted and the jobs
	// failed because a task failed with this cause.
	FailedStages []int `json:"failedStages"`
	FailedJobs   []int `json:"failedJobs"`
}

// Fatal is true when the cause failed a job.
func (c *FailureCause) Fatal() bool { return len(c.FailedJobs) > 0 }

// JobFailure is one failed job and why.
type JobFailure struct {
	JobID    int    `json:"jobId"`
	Message  string `json:"message"` // the job's exception message, first line
	Kind     string `json:"kind"`    // JobAborted, JobCancelledByShutdown, JobCancelled, JobFailedOther
	Time     int64  `json:"time"`    // when it ended
	StageIDs []int  `json:"stageIds"`
	// Cause is the index in Failures.Causes of the task failure that
	// aborted the job; -1 when no task failure explains it.
	Cause int `json:"cause"`
	// Stage and StageAttempt are the stage attempt whose abort failed the
	// job, Task the last failed attempt of the task that aborted it; -1
	// when not known.
	Stage, StageAttempt int
	Task                int64
}

// Kinds of job failure.
const (
	JobAborted             = "aborted"            // a stage failed: a task failed too often, a fetch failed too often
	JobCancelledByShutdown = "cancelled-shutdown" // SparkContext stopped while the job ran
	JobCancelled           = "cancelled"          // cancelled by the user or a job group
	JobFailedOther         = "other"
)

// Failures are the application's task-failure root causes, ranked (the
// root cause of the application's failure first, then causes that failed
// a job, then by task time lost), its failed jobs, and its outcome.
type Failures struct {
	Causes []FailureCause `json:"causes"`
	Jobs   []JobFailure   `json:"jobs"`
	// StopTime is when the SparkContext began to stop: the application's
	// end, or the first job or stage it cancelled as it stopped, whichever
	// came first; model.NoTime when the log shows neither.
	StopTime int64   `json:"stopTime"`
	Outcome  Outcome `json:"outcome"`
}

// failures groups the attempt's failed task attempts by cause, in the
// order Spark's causality gives them: failures after the SparkContext
// began to stop and fetch failures after an executor loss are
// consequences; a job's cause is the earliest failure of the task that
// aborted it. Then it ranks the causes and says how the application ended.
func failures(a *model.Attempt, running bool) Failures {
	stop := stopTime(a)
	g := groupCauses(a, stop)
	out := Failures{Causes: g.causes, StopTime: stop}
	out.Jobs = attributeJobs(a, &g, stop)
	out.Outcome = outcome(a, &out, running)
	rankCauses(&out)
	return out
}

// rankCauses orders the causes — the application's root cause first, then
// causes that failed a job, consequences of the shutdown last, then by task
// time lost — and keeps the job failures and the outcome pointing at theirs.
func rankCauses(f *Failures) {
	order := make([]int, len(f.Causes))
	for i := range order {
		order[i] = i
	}
	root := f.Outcome.Cause
	sort.SliceStable(order, func(x, y int) bool {
		if (order[x] == root) != (order[y] == root) {
			return order[x] == root
		}
		a, b := &f.Causes[order[x]], &f.Causes[order[y]]
		if a.Fatal() != b.Fatal() {
			return a.Fatal()
		}
		if a.Shutdown != b.Shutdown {
			return !a.Shutdown
		}
		if a.WastedMs != b.WastedMs {
			return a.WastedMs > b.WastedMs
		}
		return a.FirstTime < b.FirstTime
	})
	ranked := make([]FailureCause, len(order))
	where := make([]int, len(order))
	for to, from := range order {
		ranked[to] = f.Causes[from]
		where[from] = to
	}
	f.Causes = ranked
	for i := range f.Jobs {
		if c := f.Jobs[i].Cause; c >= 0 {
			f.Jobs[i].Cause = where[c]
		}
	}
	if root >= 0 {
		f.Outcome.Cause = where[root]
	}
}

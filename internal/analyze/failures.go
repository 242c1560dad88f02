package analyze

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// FailureCause is one root cause of failed task attempts: the failed
// attempts whose errors have the same end reason, exception class, message
// shape (numbers and hex ids aside) and user frame.
type FailureCause struct {
	Error  TaskError `json:"error"`
	Reason string    `json:"reason"` // Spark's end reason: ExceptionFailure, ExecutorLostFailure, FetchFailed, …
	// LostExecutor is, for FetchFailed attempts, the executor whose shuffle
	// output could not be fetched when that executor had been lost: the
	// loss is the root cause, the fetch failures its consequence.
	LostExecutor string `json:"lostExecutor,omitempty"`
	// FetchFrom are, for FetchFailed attempts, the executors whose shuffle
	// output could not be fetched.
	FetchFrom []string `json:"fetchFrom,omitempty"`

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
	StageIDs []int  `json:"stageIds"`
	// Cause is the index in Failures.Causes of the task failure that
	// aborted the job; -1 when no task failure explains it.
	Cause int `json:"cause"`
}

// Kinds of job failure.
const (
	JobAborted             = "aborted"            // a stage failed: a task failed too often, a fetch failed too often
	JobCancelledByShutdown = "cancelled-shutdown" // SparkContext stopped while the job ran
	JobCancelled           = "cancelled"          // cancelled by the user or a job group
	JobFailedOther         = "other"
)

// Failures are the application's task-failure root causes, ranked (causes
// that failed a job first, then by task time lost), and its failed jobs.
type Failures struct {
	Causes []FailureCause `json:"causes"`
	Jobs   []JobFailure   `json:"jobs"`
}

var (
	// numbers: digits, and hex runs with a digit in them (UUIDs and hashed
	// sub-directories in paths differ by executor: blockmgr-99ba4555-…/0f/).
	numbers = regexp.MustCompile(`[0-9a-f]*[0-9][0-9a-f]*`)
	// "Task 2 in stage 0.0 failed 4 times" in a job's or stage's abort message.
	abortedTask = regexp.MustCompile(`Task (\d+) in stage (\d+)\.(\d+) failed`)
)

// failures groups the attempt's failed task attempts by cause and explains
// its failed jobs.
func failures(a *model.Attempt) Failures {
	type taskKey struct{ stage, attempt, index int }
	idx := map[string]int{}
	var out Failures
	recovered := map[taskKey]bool{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.Successful() {
				recovered[taskKey{s.StageID, -1, t.Index}] = true
			}
		}
	}
	lastCause := map[taskKey]int{} // the cause of each task's last failed attempt
	failCount := map[taskKey]int{} // failed attempts of each task in a stage attempt
	type counted struct {
		tasks map[taskKey]int   // failed attempts per task
		ms    map[taskKey]int64 // their Σ duration per task
	}
	per := []counted{}
	lost := lostExecutors(a)
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if !t.Failed || t.FinishTime == 0 {
				continue
			}
			msg := t.ErrorMessage
			switch {
			case t.Fetch != nil:
				msg = t.Fetch.Message
			case t.Loss != nil:
				msg = lossMessage(t.Loss)
			}
			e := ParseTaskError(t.EndReason, msg)
			if e.Class == "" {
				e.Class = cmpOr(t.EndReason, "unknown")
			}
			c := FailureCause{Error: e, Reason: t.EndReason}
			var from string
			if t.Fetch != nil && t.Fetch.HasAddress {
				from = t.Fetch.ExecutorID
				if lost[from] {
					c.LostExecutor = from
				}
			}
			key := t.EndReason + "\x00" + e.Class + "\x00" + numbers.ReplaceAllString(e.Message, "N") + "\x00" +
				e.Frame.String() + "\x00" + c.LostExecutor
			if t.EndReason == "ExecutorLostFailure" {
				key = t.EndReason + "\x00" + t.ExecutorID // one cause per lost executor
			}
			i, ok := idx[key]
			if !ok {
				i = len(out.Causes)
				idx[key] = i
				c.FirstTime = t.FinishTime
				out.Causes = append(out.Causes, c)
				per = append(per, counted{tasks: map[taskKey]int{}, ms: map[taskKey]int64{}})
			}
			c2 := &out.Causes[i]
			c2.Attempts++
			c2.WastedMs = model.SatAdd(c2.WastedMs, model.Span(t.LaunchTime, t.FinishTime))
			c2.FirstTime = min(c2.FirstTime, t.FinishTime)
			c2.StageIDs = appendOnce(c2.StageIDs, s.StageID)
			c2.ExecutorIDs = appendOnceStr(c2.ExecutorIDs, t.ExecutorID)
			c2.Hosts = appendOnceStr(c2.Hosts, t.Host)
			if from != "" {
				c2.FetchFrom = appendOnceStr(c2.FetchFrom, from)
			}
			k := taskKey{s.StageID, -1, t.Index}
			per[i].tasks[k]++
			per[i].ms[k] = model.SatAdd(per[i].ms[k], model.Span(t.LaunchTime, t.FinishTime))
			lastCause[taskKey{s.StageID, s.AttemptID, t.Index}] = i
			failCount[taskKey{s.StageID, s.AttemptID, t.Index}]++
		}
	}
	for i := range out.Causes {
		c := &out.Causes[i]
		c.Tasks = len(per[i].tasks)
		for k, n := range per[i].tasks {
			c.MaxAttempts = max(c.MaxAttempts, n)
			c.DelayMs = max(c.DelayMs, per[i].ms[k])
			if recovered[k] {
				c.Recovered++
			}
		}
		slices.Sort(c.StageIDs)
		slices.Sort(c.ExecutorIDs)
		slices.Sort(c.Hosts)
		slices.Sort(c.FetchFrom)
	}
	// A stage aborted by a task names that task in its message ("Task 3 in
	// stage 0.0 failed 4 times"), before Spark 4; Spark 4 gives the task's
	// own error for errors with an error class: then the task of that
	// stage attempt that failed most often aborted it.
	stageCause := func(msg string, stage, attempt int) int {
		if m := abortedTask.FindStringSubmatch(msg); m != nil {
			index, _ := strconv.Atoi(m[1])
			stage, _ := strconv.Atoi(m[2])
			attempt, _ := strconv.Atoi(m[3])
			if i, ok := lastCause[taskKey{stage, attempt, index}]; ok {
				return i
			}
		}
		best, n := -1, 0
		for k, c := range failCount {
			if k.stage == stage && k.attempt == attempt && (c > n || c == n && lastCause[k] < best) {
				best, n = lastCause[k], c
			}
		}
		return best
	}
	for _, s := range a.Stages {
		if s.Status != model.StageFailed || !s.HasFailureReason {
			continue
		}
		if i := stageCause(s.FailureReason, s.StageID, s.AttemptID); i >= 0 {
			out.Causes[i].FailedStages = appendOnce(out.Causes[i].FailedStages, s.StageID)
		}
	}
	for _, j := range a.Jobs {
		if j.Status != model.JobFailed {
			continue
		}
		first, _, _ := strings.Cut(j.ErrorMessage, "\n")
		jf := JobFailure{JobID: j.ID, Message: strings.TrimSpace(first), Cause: -1, Kind: jobFailureKind(j.ErrorMessage)}
		for _, s := range a.Stages {
			if s.Status == model.StageFailed && slices.Contains(s.JobIDs, j.ID) {
				jf.StageIDs = appendOnce(jf.StageIDs, s.StageID)
				if jf.Cause < 0 && jf.Kind != JobCancelledByShutdown && jf.Kind != JobCancelled {
					jf.Cause = stageCause(s.FailureReason, s.StageID, s.AttemptID)
				}
			}
		}
		if jf.Cause >= 0 {
			jf.Kind = JobAborted
			out.Causes[jf.Cause].FailedJobs = append(out.Causes[jf.Cause].FailedJobs, j.ID)
		}
		slices.Sort(jf.StageIDs)
		out.Jobs = append(out.Jobs, jf)
	}
	// Rank: causes that failed a job first, then by task time lost; job
	// failures keep pointing at their cause through the permutation.
	order := make([]int, len(out.Causes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := &out.Causes[order[x]], &out.Causes[order[y]]
		if a.Fatal() != b.Fatal() {
			return a.Fatal()
		}
		if a.WastedMs != b.WastedMs {
			return a.WastedMs > b.WastedMs
		}
		return a.FirstTime < b.FirstTime
	})
	ranked := make([]FailureCause, len(order))
	where := make([]int, len(order))
	for to, from := range order {
		ranked[to] = out.Causes[from]
		where[from] = to
	}
	out.Causes = ranked
	for i := range out.Jobs {
		if c := out.Jobs[i].Cause; c >= 0 {
			out.Jobs[i].Cause = where[c]
		}
	}
	return out
}

// jobFailureKind classifies a failed job's exception message.
func jobFailureKind(msg string) string {
	switch {
	case strings.Contains(msg, "cancelled because SparkContext was shut down"):
		return JobCancelledByShutdown
	case strings.Contains(msg, "Job aborted due to stage failure"):
		return JobAborted
	case strings.Contains(msg, "cancelled"):
		return JobCancelled
	}
	return JobFailedOther
}

// lostExecutors are the executors removed for a reason other than the
// application ending or releasing them.
func lostExecutors(a *model.Attempt) map[string]bool {
	out := map[string]bool{}
	for _, e := range a.Executors {
		if e.RemoveTime == model.NoTime {
			continue
		}
		switch cause, _ := ClassifyLoss(e.RemoveReason); cause {
		case CauseIdle, CauseDriver:
			continue
		}
		out[e.ID] = true
	}
	return out
}

func appendOnce(s []int, v int) []int {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func appendOnceStr(s []string, v string) []string {
	if v == "" || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// lossMessage says what an ExecutorLostFailure's fields say, in one line.
func lossMessage(l *model.ExecutorLoss) string {
	who := "unrelated to the running tasks"
	if l.CausedByApp {
		who = "caused by one of the running tasks"
	}
	msg := "executor " + cmpOr(l.ExecutorID, "(unknown)") + " lost, " + who
	if l.HasReason {
		msg += ": " + l.Reason
	}
	return msg
}

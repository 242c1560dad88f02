package analyze

import (
	"fmt"
	"slices"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Outcome is how the application ended and why, decided once: the serve
// app page's failure banner and badge, the CLI's findings and the JSON
// report all read it.
type Outcome struct {
	// Status is "succeeded", "failed" (a job failed), "stopped" (the
	// SparkContext stopped while jobs ran and no failure explains it),
	// "incomplete" (the log ends without the application's end) or
	// "running".
	Status string `json:"status"`
	Jobs   int    `json:"jobs"` // jobs the application ran
	// FailedJobs are the jobs that failed: aborted by a failure, or
	// cancelled by a stop that a failure before it explains. Jobs the user
	// cancelled are not, nor jobs a plain stop() cancelled (StoppedJobs).
	FailedJobs  []int `json:"failedJobs"`
	StoppedJobs []int `json:"stoppedJobs"`
	// LastJobFailed says whether the application's last job is among
	// FailedJobs: an application whose last job failed failed outright; one
	// with an earlier failed job went on.
	LastJobFailed bool `json:"lastJobFailed"`
	// Summary says it in words: "job 3, the last, failed", "1 of 5 jobs
	// failed (job 2); the last succeeded".
	Summary string `json:"summary"`
	// The root cause: the failed job it failed first, the index in
	// Failures.Causes of the task failure (-1 when no task failure explains
	// the job), the job's kind and message, the stage attempt it aborted
	// and the last failed attempt of the task that aborted it (-1 when
	// unknown). Job is -1 when nothing failed.
	Job          int    `json:"job"`
	Cause        int    `json:"cause"`
	Kind         string `json:"kind,omitempty"`
	Message      string `json:"message,omitempty"`
	Stage        int    `json:"stage"`
	StageAttempt int    `json:"stageAttempt"`
	Task         int64  `json:"task"`
}

// Outcome statuses.
const (
	OutcomeSucceeded  = "succeeded"
	OutcomeFailed     = "failed"
	OutcomeStopped    = "stopped"
	OutcomeIncomplete = "incomplete"
	OutcomeRunning    = "running"
)

// outcome decides how the application ended. The root cause is the
// earliest failure that aborted a job; when jobs were only cancelled by
// the SparkContext stopping, a task failure before the stop that never
// recovered (an OutOfMemoryError that took a local driver with it, an
// error after which the driver stopped) is what ended them.
func outcome(a *model.Attempt, f *Failures, running bool) Outcome {
	o := Outcome{Jobs: len(a.Jobs), FailedJobs: []int{}, StoppedJobs: []int{}, Job: -1, Cause: -1, Stage: -1,
		StageAttempt: -1, Task: -1}
	root := rootJob(f) // index in f.Jobs
	for i := range f.Jobs {
		j := &f.Jobs[i]
		switch {
		case j.Kind == JobCancelled:
		case j.Kind == JobCancelledByShutdown && j.Cause < 0:
			o.StoppedJobs = append(o.StoppedJobs, j.JobID)
		default:
			o.FailedJobs = append(o.FailedJobs, j.JobID)
			if root < 0 {
				root = i // a job no task failure explains
			}
		}
	}
	if root < 0 && len(o.StoppedJobs) > 0 {
		root = slices.IndexFunc(f.Jobs, func(j JobFailure) bool { return j.JobID == o.StoppedJobs[0] })
	}
	if root >= 0 {
		j := &f.Jobs[root]
		o.Job, o.Cause, o.Kind, o.Message = j.JobID, j.Cause, j.Kind, j.Message
		o.Stage, o.StageAttempt, o.Task = j.Stage, j.StageAttempt, j.Task
	}
	last := lastJob(a)
	o.LastJobFailed = last >= 0 && slices.Contains(o.FailedJobs, last)
	switch {
	case running:
		o.Status = OutcomeRunning
	case len(o.FailedJobs) > 0:
		o.Status = OutcomeFailed
	case len(o.StoppedJobs) > 0:
		o.Status = OutcomeStopped
	case !a.Completed:
		o.Status = OutcomeIncomplete
	default:
		o.Status = OutcomeSucceeded
	}
	o.Summary = o.summary(a.Job(last))
	return o
}

// rootJob is the index in f.Jobs of the job the root cause failed: of the
// jobs a task failure explains, the one whose cause came first; else, when
// the stop cancelled jobs after a task failed and never recovered, the
// first of those, which that failure is made the cause of; -1 when none.
func rootJob(f *Failures) int {
	root := -1
	for i := range f.Jobs {
		j := &f.Jobs[i]
		if j.Cause < 0 {
			continue
		}
		if root < 0 || f.Causes[j.Cause].FirstTime < f.Causes[f.Jobs[root].Cause].FirstTime {
			root = i
		}
	}
	if root >= 0 {
		return root
	}
	c := unrecoveredBefore(f)
	if c < 0 {
		return -1
	}
	for i := range f.Jobs {
		if j := &f.Jobs[i]; j.Kind == JobCancelledByShutdown {
			j.Cause = c
			f.Causes[c].FailedJobs = append(f.Causes[c].FailedJobs, j.JobID)
			if root < 0 {
				root = i
			}
		}
	}
	return root
}

// unrecoveredBefore is the first cause, before the stop and not caused by
// it, that some task never recovered from; -1 when none.
func unrecoveredBefore(f *Failures) int {
	best := -1
	for i := range f.Causes {
		c := &f.Causes[i]
		if c.Shutdown || c.Recovered == c.Tasks || c.Reason == "FetchFailed" && c.LostExecutor != "" {
			continue
		}
		if best < 0 || c.FirstTime < f.Causes[best].FirstTime {
			best = i
		}
	}
	return best
}

// lastJob is the id of the job submitted last; -1 when none ran.
func lastJob(a *model.Attempt) int {
	id, at := -1, int64(model.NoTime)
	for _, j := range a.Jobs {
		if j.SubmissionTime > at || j.SubmissionTime == at && j.ID > id {
			id, at = j.ID, j.SubmissionTime
		}
	}
	return id
}

// summary says which jobs failed, in words, and how the last job ended.
func (o *Outcome) summary(last *model.Job) string {
	n := len(o.FailedJobs)
	switch {
	case n == 0 && len(o.StoppedJobs) > 0:
		return fmt.Sprintf("the SparkContext stopped while %s ran", jobList(o.StoppedJobs))
	case n == 0 || last == nil:
		return ""
	case o.LastJobFailed && n == 1:
		return fmt.Sprintf("job %d, the last, failed", last.ID)
	case o.LastJobFailed:
		return fmt.Sprintf("%d of %d jobs failed (%s), the last among them", n, o.Jobs, jobList(o.FailedJobs))
	}
	end := "did not finish"
	if last.Status == model.JobSucceeded {
		end = "succeeded"
	}
	return fmt.Sprintf("%d of %d jobs failed (%s); the last, job %d, %s", n, o.Jobs, jobList(o.FailedJobs), last.ID, end)
}

// jobList names jobs: "job 3", "jobs 1, 4".
func jobList(ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("job %d", ids[0])
	}
	s := "jobs "
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(id)
	}
	return s
}

package analyze

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// abortedTask finds "Task 2 in stage 0.0 failed 4 times" in a job's or
// stage's abort message: the task whose failures aborted the stage.
var abortedTask = regexp.MustCompile(`Task (\d+) in stage (\d+)\.(\d+) failed`)

// attributeJobs explains the attempt's failed stages and jobs: a stage
// aborted by one of its tasks is that task's root cause's (the earliest
// failure of the task that is not a consequence of the shutdown); a stage
// cancelled because another stage aborted, or because the SparkContext
// stopped, is nobody's; a job is the cause's whose task aborted its stage.
func attributeJobs(a *model.Attempt, g *causeGroups, stop int64) []JobFailure {
	for _, s := range a.Stages {
		if s.Status != model.StageFailed || !s.HasFailureReason || shutdownError(s.FailureReason) {
			continue
		}
		if k, ok := g.abortingTask(s.FailureReason, s.StageID, s.AttemptID); ok && k.stage == s.StageID {
			if i := g.rootOfTask(k); i >= 0 {
				g.causes[i].FailedStages = appendOnce(g.causes[i].FailedStages, s.StageID)
			}
		}
	}
	var out []JobFailure
	for _, j := range a.Jobs {
		if j.Status != model.JobFailed {
			continue
		}
		out = append(out, g.jobFailure(a, j, stop))
	}
	return out
}

// jobFailure explains one failed job.
func (g *causeGroups) jobFailure(a *model.Attempt, j *model.Job, stop int64) JobFailure {
	first, _, _ := strings.Cut(j.ErrorMessage, "\n")
	jf := JobFailure{JobID: j.ID, Message: strings.TrimSpace(first), Kind: jobFailureKind(j.ErrorMessage),
		Time: j.CompletionTime, Cause: -1, Stage: -1, StageAttempt: -1, Task: -1}
	var failed []*model.StageAttempt
	for _, s := range a.Stages {
		if s.Status == model.StageFailed && slices.Contains(s.JobIDs, j.ID) {
			jf.StageIDs = appendOnce(jf.StageIDs, s.StageID)
			failed = append(failed, s)
		}
	}
	slices.Sort(jf.StageIDs)
	if jf.Kind == JobCancelledByShutdown || jf.Kind == JobCancelled {
		return jf
	}
	// The task the job's message names, else the first of its stages an
	// own task aborted.
	k, ok := g.abortingTask(j.ErrorMessage, -1, -1)
	slices.SortStableFunc(failed, func(x, y *model.StageAttempt) int { return cmp.Compare(x.CompletionTime, y.CompletionTime) })
	for _, s := range failed {
		if ok {
			break
		}
		if !shutdownError(s.FailureReason) {
			k, ok = g.abortingTask(s.FailureReason, s.StageID, s.AttemptID)
		}
	}
	if ok {
		jf.Stage, jf.StageAttempt = k.stage, k.attempt
		if list := g.tasks[k]; len(list) > 0 {
			jf.Task = list[len(list)-1].taskID
		}
		jf.Cause = g.rootOfTask(k)
	}
	switch {
	case jf.Cause >= 0:
		jf.Kind = JobAborted
		g.causes[jf.Cause].FailedJobs = append(g.causes[jf.Cause].FailedJobs, j.ID)
	case stop != model.NoTime && j.CompletionTime >= stop:
		// Failed once the SparkContext stopped, by nothing that came
		// before: the stop's consequence ("Filesystem closed").
		jf.Kind = JobCancelledByShutdown
	}
	return jf
}

// abortingTask is the task whose failures aborted a stage, from the abort
// message ("Task 3 in stage 0.0 failed 4 times"); Spark 4 gives the task's
// own error for errors with an error class, and a stage that failed its
// fetches too often names no task: then the task of stage attempt (stage,
// attempt) that failed most often, its last failure breaking ties. A
// message that names no task and no stage attempt given: none.
func (g *causeGroups) abortingTask(msg string, stage, attempt int) (taskKey, bool) {
	if m := abortedTask.FindStringSubmatch(msg); m != nil {
		index, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[2])
		at, _ := strconv.Atoi(m[3])
		if k := (taskKey{s, at, index}); len(g.tasks[k]) > 0 {
			return k, true
		}
	}
	if stage < 0 {
		return taskKey{}, false
	}
	var best taskKey
	n, last := 0, int64(0)
	for k, list := range g.tasks {
		if k.stage != stage || k.attempt != attempt || g.rootOfTask(k) < 0 {
			continue
		}
		end := list[len(list)-1].time
		if len(list) > n || len(list) == n && (end > last || end == last && k.index < best.index) {
			best, n, last = k, len(list), end
		}
	}
	return best, n > 0
}

// rootOfTask is the cause of a task's earliest failed attempt that the
// shutdown did not cause: the failure that started what aborted it; -1
// when every failure came with the shutdown.
func (g *causeGroups) rootOfTask(k taskKey) int {
	for _, f := range g.tasks[k] {
		if !g.causes[f.cause].Shutdown {
			return f.cause
		}
	}
	return -1
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

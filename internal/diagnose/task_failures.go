package diagnose

import (
	"fmt"
	"slices"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TaskFailures reports stages whose tasks fail and retry, and failed jobs.
var TaskFailures = &Rule{
	ID:     "task-failures",
	Title:  "Task failures",
	Recipe: "troubleshoot/slow-spark-jobs.md#task-failures",
	Doc:    "Task attempts fail and are retried (time lost, one step from a job abort); killed attempts do not count.",
	Thresholds: []Threshold{{Metric: "failed attempts ÷ attempts per stage", Warning: 0.10, Critical: 0.20,
		Gate:   "≥ 10 attempts; any failed job is critical",
		Source: "Dr. Elephant tuning_20190221 DEFAULT_TASK_FAILURE_RATE_SEVERITY_THRESHOLDS (0.1, 0.2); job failure ours"}},
	Run: runTaskFailures,
}

func runTaskFailures(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.Failed == 0 || s.Attempts < 10 {
			continue
		}
		rate := float64(s.Failed) / float64(s.Attempts)
		sev := level(rate, 0.10, 0.20)
		if sev == None {
			continue
		}
		top, n := topReason(s.FailureReasons)
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID}, ExecutorIDs: failedOn(p, s.StageID, s.AttemptID),
			Detail: fmt.Sprintf("%s: %d of %d task attempts failed (%.0f%%), most with %s (%d).",
				stageRef(s), s.Failed, s.Attempts, 100*rate, top, n),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "failedAttempts": s.Failed,
				"attempts": s.Attempts, "failureRate": round(rate), "topException": top, "reasons": s.FailureReasons}})
	}
	for _, j := range p.Result.Jobs {
		if j.Status != model.JobFailed {
			continue
		}
		var failed []int
		for _, s := range p.Result.Stages {
			if s.Status == model.StageFailed && slices.Contains(s.JobIDs, j.ID) {
				failed = append(failed, s.StageID)
			}
		}
		out = append(out, Finding{Severity: Critical, StageIDs: failed, Title: "Job failed",
			Detail:   fmt.Sprintf("Job %d failed (failed stages %v).", j.ID, failed),
			Evidence: map[string]any{"jobId": j.ID, "failedStages": failed}})
	}
	return out
}

func topReason(reasons map[string]int) (string, int) {
	best, n := "", 0
	for k, v := range reasons {
		if v > n || (v == n && k < best) {
			best, n = k, v
		}
	}
	return best, n
}

// failedOn lists executors with failed attempts in one stage attempt.
func failedOn(p *Pass, id, attempt int) []string {
	s := p.Attempt.Stage(id, attempt)
	if s == nil {
		return nil
	}
	var ids []string
	for _, t := range s.Tasks {
		if t.Failed && !slices.Contains(ids, t.ExecutorID) {
			ids = append(ids, t.ExecutorID)
		}
	}
	slices.Sort(ids)
	return ids
}

package reportv1

import "github.com/sparkdx/sparkdx/internal/analyze"

// Outcome is how the application ended and what failed it, as analyze
// decided once (analyze.Outcome): the report's "outcome" object, and what
// serve's failure banner and app badge show.
type Outcome struct {
	// Status: succeeded, failed, stopped (the SparkContext stopped with
	// jobs running and no failure to explain it), incomplete, running.
	Status        string `json:"status"`
	Summary       string `json:"summary"` // which jobs failed, in words; "" when none
	Jobs          int    `json:"jobs"`
	FailedJobs    []int  `json:"failedJobs"`
	StoppedJobs   []int  `json:"stoppedJobs"`
	LastJobFailed bool   `json:"lastJobFailed"`
	// RootCause is what failed the first failed job; null when no job
	// failed or stopped.
	RootCause *RootCause `json:"rootCause"`
}

// RootCause is the failure that failed the application's first failed job.
type RootCause struct {
	JobID   int    `json:"jobId"`
	Kind    string `json:"kind"`    // aborted, cancelled-shutdown, cancelled, other
	Message string `json:"message"` // the job's error, first line
	// The task failure that aborted it: empty when none explains the job.
	Exception        string `json:"exception"`
	ExceptionMessage string `json:"exceptionMessage"`
	UserFrame        string `json:"userFrame"` // the first frame of the user's code ("etl.py:11 in parse")
	Reason           string `json:"reason"`    // Spark's end reason: ExceptionFailure, ExecutorLostFailure, …
	Attempts         int    `json:"attempts"`
	Tasks            int    `json:"tasks"`
	// The stage attempt it aborted and the last failed attempt of the task
	// that aborted it; -1 when unknown.
	StageID      int      `json:"stageId"`
	StageAttempt int      `json:"stageAttempt"`
	TaskID       int64    `json:"taskId"`
	ExecutorIDs  []string `json:"executorIds"`
}

// OutcomeOf is the outcome of an analysis, for the report and serve alike.
func OutcomeOf(res *analyze.Result) Outcome {
	o := &res.Failures.Outcome
	out := Outcome{Status: o.Status, Summary: o.Summary, Jobs: o.Jobs, FailedJobs: nonNilInts(o.FailedJobs),
		StoppedJobs: nonNilInts(o.StoppedJobs), LastJobFailed: o.LastJobFailed}
	if o.Job < 0 {
		return out
	}
	rc := &RootCause{JobID: o.Job, Kind: o.Kind, Message: o.Message, StageID: o.Stage, StageAttempt: o.StageAttempt,
		TaskID: o.Task, ExecutorIDs: []string{}}
	if o.Cause >= 0 && o.Cause < len(res.Failures.Causes) {
		c := &res.Failures.Causes[o.Cause]
		rc.Exception, rc.ExceptionMessage, rc.UserFrame = c.Error.Class, c.Error.Message, c.Error.Frame.String()
		rc.Reason, rc.Attempts, rc.Tasks = c.Reason, c.Attempts, c.Tasks
		if c.ExecutorIDs != nil {
			rc.ExecutorIDs = c.ExecutorIDs
		}
	}
	out.RootCause = rc
	return out
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// Plugin is an accelerator the application ran with (analyze.Plugins).
type Plugin struct {
	Name    string `json:"name"`    // "RAPIDS Accelerator", "Photon"
	Version string `json:"version"` // "" when the log does not say
	// PlanNodes of AllNodes SQL plan nodes ran on it.
	PlanNodes int `json:"planNodes"`
	AllNodes  int `json:"allNodes"`
}

// pluginsOf lists the analysis's accelerators, RAPIDS first.
func pluginsOf(res *analyze.Result) []Plugin {
	out := []Plugin{}
	for _, p := range []*analyze.Plugin{res.Plugins.RAPIDS, res.Plugins.Photon} {
		if p != nil {
			out = append(out, Plugin{Name: p.Name, Version: p.Version, PlanNodes: p.PlanNodes, AllNodes: p.AllNodes})
		}
	}
	return out
}

// String names a plugin with its version, for a report's header.
func (p Plugin) String() string {
	if p.Version == "" {
		return p.Name + " (version not in the log)"
	}
	return p.Name + " " + p.Version
}

// Status says how the application ended, for a report's header: Spark's
// view (completed, or not) and, when a job failed, which — the text the
// serve badge shows as its title.
func (r *Report) Status() string {
	s := "completed"
	if !r.App.Completed {
		s = "incomplete (no application end; times run to the last event)"
	}
	switch o := r.Outcome; o.Status {
	case analyze.OutcomeFailed:
		s += " · failed: " + o.Summary
	case analyze.OutcomeStopped:
		s += " · stopped: " + o.Summary
	}
	return s
}

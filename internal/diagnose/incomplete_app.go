package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/model"
)

var incompleteIdle = Threshold{Metric: "log idle time without an end event (min)", Warning: 10,
	Gate: ".inprogress and modified < 10 min ago, or nothing open and the last job succeeded: info; " +
		"critical when stages or jobs were still open",
	Source: "ours: far above the event-log flush and spark.history.fs.update.interval (10 s)"}

// IncompleteApp reports logs without SparkListenerApplicationEnd.
var IncompleteApp = &Rule{
	ID:     "incomplete-app",
	Title:  "Application did not finish",
	Recipe: "troubleshoot/slow-spark-jobs.md#incomplete-app",
	Doc: "The log has no SparkListenerApplicationEnd: the app is still running, or its driver died " +
		"(OOM-killed, node lost, kill -9) before it could write its last events.",
	Thresholds: []Threshold{incompleteIdle},
	Run:        runIncompleteApp,
}

func runIncompleteApp(p *Pass) []Finding {
	a := p.Attempt
	if a.Completed {
		return nil
	}
	var openStages []int
	for _, s := range a.Stages {
		if s.Status == model.StageActive {
			openStages = append(openStages, s.StageID)
		}
	}
	openJobs := 0
	for _, j := range a.Jobs {
		if j.Status == model.JobRunning {
			openJobs++
		}
	}
	idle := int64(-1)
	if !p.Log.ModTime.IsZero() && !p.Log.Now.IsZero() {
		idle = p.Log.Now.Sub(p.Log.ModTime).Milliseconds()
	}
	sev := Warning
	switch {
	case p.Log.InProgress && idle >= 0 && float64(idle) < incompleteIdle.Warning*float64(minute):
		sev = Info
	case len(openStages) > 0 || openJobs > 0:
		sev = Critical
	case lastJobSucceeded(a):
		// Nothing was running and the last job succeeded: the driver went
		// away between jobs (a managed cluster terminated, the log copied
		// before its end), which cost no work the log shows. A driver that
		// ran no job at all stays a warning: it may have died starting.
		sev = Info
	}
	last := p.Result.EndTime
	detail := fmt.Sprintf("No application end event; the last event was %s after start, with %d stage(s) and %d job(s) still open.",
		fmtMs(last-p.Result.StartTime), len(openStages), openJobs)
	if sev == Info && !p.Log.InProgress {
		detail += " Every job had ended: the driver stopped between jobs without writing its end (a cluster terminated, " +
			"or the log was copied before the end), and no work the log shows was lost."
	}
	return []Finding{{Severity: sev, StageIDs: openStages,
		Detail: detail,
		Evidence: map[string]any{"lastEventTime": last, "openStages": len(openStages), "openJobs": openJobs,
			"inProgress": p.Log.InProgress, "truncated": p.Log.Truncated, "idleMs": idle}}}
}

// lastJobSucceeded tells whether a job ended and the last one to end
// succeeded.
func lastJobSucceeded(a *model.Attempt) bool {
	var last *model.Job
	for _, j := range a.Jobs {
		if j.CompletionTime != model.NoTime && (last == nil || j.CompletionTime > last.CompletionTime) {
			last = j
		}
	}
	return last != nil && last.Status == model.JobSucceeded
}

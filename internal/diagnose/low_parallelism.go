package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var pRatio = Threshold{Metric: "PRatio = tasks ÷ cores (lower is worse)", Warning: 1, Critical: 0.25,
	Gate:   "stage ≥ 30 s; not while other stages kept ≥ 50 % of the cores busy; cost: idle core time (ours)",
	Source: "Sparklens PRatio; Spark tuning guide 2–3 tasks per core; 0.25 ours"}

var longTasks = Threshold{Metric: "median task run time (ms)", Warning: float64(5 * minute), Critical: float64(15 * minute),
	Gate: "stage ≥ 30 s; cost: idle core time", Source: "Dr. Elephant tuning_20190221 DEFAULT_TASK_DURATION_THRESHOLDS (5, 15 min)"}

// LowParallelism reports stages with fewer tasks than cores, or very long tasks.
var LowParallelism = &Rule{
	ID:         "low-parallelism",
	Title:      "Low parallelism",
	Recipe:     "troubleshoot/slow-spark-jobs.md#low-parallelism",
	Doc:        "A long stage has fewer tasks than the cores available (cores idle) or few very long tasks.",
	Thresholds: []Threshold{pRatio, longTasks},
	Run:        runLowParallelism,
}

// minLowParallelismStageMs is the shortest stage judged: a final
// single-task stage of a few seconds (a count's, a collect's) idles cores
// by design.
const minLowParallelismStageMs = 30 * second

func runLowParallelism(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		sev, idle, wall := lowParallelism(s)
		if sev == None {
			continue
		}
		med := s.RunTimeMs.P50
		cost := p.cost(wall, idle, "cores idle while the stage ran (at most the cores beyond its task count); "+
			"wall: the stage's task time spread over every core")
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
			Detail: fmt.Sprintf("%s ran %s on %d cores (%.2f tasks per core) with a median task of %s over %s.",
				stageRef(s), tasksOf(s.NumTasks), s.CoresAvailable, s.PRatio, fmtMs(med), fmtMs(s.DurationMs)),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "numTasks": s.NumTasks,
				"cores": s.CoresAvailable, "pRatio": round(s.PRatio), "medianTaskMs": med, "stageDurationMs": s.DurationMs,
				"clusterBusy": round(s.ClusterBusy)}})
	}
	return out
}

// lowParallelism judges one stage: its severity before the cost gate, the
// core time it left idle (no task of any stage on those cores) and the
// wall time it would save with its task time spread over every core.
// idle-executors subtracts the idle time of the stages judged here.
func lowParallelism(s *analyze.Stage) (sev Severity, idleMs, wallMs int64) {
	if s.DurationMs < minLowParallelismStageMs || s.Succeeded == 0 {
		return None, 0, 0
	}
	// Few tasks do not idle the cluster when other stages kept it busy
	// meanwhile (concurrent jobs, parallel branches).
	if s.CoresAvailable > 0 && s.ClusterBusy < 0.5 {
		sev = pRatio.Level(s.PRatio)
	}
	sev = max(sev, longTasks.Level(float64(s.RunTimeMs.P50)))
	if sev == None {
		return None, 0, 0
	}
	window := s.DurationMs + s.QueuedMs
	idleMs = int64(float64(int64(s.CoresAvailable)*window) * max(1-s.ClusterBusy, 0))
	// Cores idle because one task ran long are data-skew's cost: with few
	// tasks, only the cores no task could use count here.
	if few := int64(s.CoresAvailable - s.NumTasks); few > 0 && s.PRatio < 1 {
		idleMs = min(idleMs, few*window)
	}
	if s.CoresAvailable > 0 {
		wallMs = s.DurationMs - s.TaskTimeMs/int64(s.CoresAvailable)
	}
	return sev, idleMs, wallMs
}

func tasksOf(n int) string {
	if n == 1 {
		return "1 task"
	}
	return fmt.Sprintf("%d tasks", n)
}

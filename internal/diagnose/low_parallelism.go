package diagnose

import "fmt"

// LowParallelism reports stages with fewer tasks than cores, or very long tasks.
var LowParallelism = &Rule{
	ID:     "low-parallelism",
	Title:  "Low parallelism",
	Recipe: "troubleshoot/slow-spark-jobs.md#low-parallelism",
	Doc:    "A long stage has fewer tasks than the cores available (cores idle) or few very long tasks.",
	Thresholds: []Threshold{
		{Metric: "PRatio = tasks ÷ cores (lower is worse)", Warning: 1, Critical: 0.25,
			Gate:   "stage ≥ 2.5 min; not while other stages kept ≥ 50 % of the cores busy (ours)",
			Source: "Sparklens PRatio; Spark tuning guide 2–3 tasks per core; 0.25 ours"},
		{Metric: "median task run time (ms)", Warning: float64(5 * minute), Critical: float64(15 * minute),
			Gate: "stage ≥ 2.5 min", Source: "Dr. Elephant tuning_20190221 DEFAULT_TASK_DURATION_THRESHOLDS (5, 15 min)"}},
	Run: runLowParallelism,
}

func runLowParallelism(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.DurationMs < 150*second || s.Succeeded == 0 {
			continue
		}
		sev := None
		// Few tasks do not idle the cluster when other stages kept it
		// busy meanwhile (concurrent jobs, parallel branches).
		if s.CoresAvailable > 0 && s.ClusterBusy < 0.5 {
			switch {
			case s.PRatio < 0.25:
				sev = Critical
			case s.PRatio < 1:
				sev = Warning
			}
		}
		med := s.RunTimeMs.P50
		sev = max(sev, level(float64(med), float64(5*minute), float64(15*minute)))
		if sev == None {
			continue
		}
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID},
			Detail: fmt.Sprintf("%s ran %d tasks on %d cores (%.2f tasks per core) with a median task of %s over %s.",
				stageRef(s), s.NumTasks, s.CoresAvailable, s.PRatio, fmtMs(med), fmtMs(s.DurationMs)),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "numTasks": s.NumTasks,
				"cores": s.CoresAvailable, "pRatio": round(s.PRatio), "medianTaskMs": med, "stageDurationMs": s.DurationMs,
				"clusterBusy": round(s.ClusterBusy)}})
	}
	return out
}

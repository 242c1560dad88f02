package diagnose

import "fmt"

// ResourceWait reports wall time spent waiting for executors.
var ResourceWait = &Rule{
	ID:     "resource-wait",
	Title:  "Waiting for executors",
	Recipe: "troubleshoot/resource-wait-long.md",
	Doc: "Wall time during which the application had no executor to run on: before the first executor " +
		"registered, and while stages had pending tasks but every executor was gone.",
	Thresholds: []Threshold{{Metric: "phases.resourceWaitMs ÷ app duration (and absolute wait)",
		Warning: 0.10, Critical: 0.25, Gate: "app ≥ 2 min; wait ≥ 60 s (warning), ≥ 5 min (critical)",
		Source: "ours: twice spark.scheduler.maxRegisteredResourcesWaitingTime (30 s) is cluster capacity, not Spark"}},
	Run: runResourceWait,
}

func runResourceWait(p *Pass) []Finding {
	r := p.Result
	wait := r.Phases.ResourceWaitMs
	if r.DurationMs < 2*minute {
		return nil
	}
	ratio := float64(wait) / float64(r.DurationMs)
	sev := None
	switch {
	case ratio >= 0.25 && wait >= 5*minute:
		sev = Critical
	case ratio >= 0.10 && wait >= minute:
		sev = Warning
	}
	if sev == None {
		return nil
	}
	return []Finding{{Severity: sev,
		Detail: fmt.Sprintf("%s of %s (%.0f%%) passed with no executor to run work; the first executor came %s after start.",
			fmtMs(wait), fmtMs(r.DurationMs), 100*ratio, fmtMs(r.Phases.FirstExecutorDelayMs)),
		Evidence: map[string]any{"resourceWaitMs": wait, "durationMs": r.DurationMs, "ratio": round(ratio),
			"firstExecutorDelayMs": r.Phases.FirstExecutorDelayMs, "maxCoresSeen": r.CriticalPath.MaxCores,
			"requestedExecutors": r.Config.RequestedExecutors}}}
}

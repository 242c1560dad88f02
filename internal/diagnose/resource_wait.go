package diagnose

import "fmt"

var resourceWaitShare = Threshold{Metric: "phases.resourceWaitMs ÷ app duration", Warning: 0.10, Critical: 0.25,
	Gate: "cost: the wait beyond 20 s of executor start-up ≥ 5 % of the app and ≥ 1 s (else info), ≥ 25 % for critical",
	Source: "ours: 20 s is what an executor takes to start when nothing is wrong — 10–21 s measured on the real-Spark " +
		"baseline scenarios (standalone, PySpark, Spark 3.5 and 4.3); a wait within it is the price of starting, not a fault"}

// ResourceWait reports wall time spent waiting for executors.
var ResourceWait = &Rule{
	ID:     "resource-wait",
	Title:  "Waiting for executors",
	Recipe: "troubleshoot/resource-wait-long.md",
	Doc: "Wall time during which the application had no executor to run on: before the first executor " +
		"registered, and while stages had pending tasks but every executor was gone.",
	Thresholds: []Threshold{resourceWaitShare},
	Run:        runResourceWait,
}

// executorStartMs is the executor start-up an application pays when nothing
// is wrong: the part of the wait that is not a cost.
const executorStartMs = 20 * second

func runResourceWait(p *Pass) []Finding {
	r := p.Result
	wait := r.Phases.ResourceWaitMs
	if r.DurationMs <= 0 {
		return nil
	}
	ratio := float64(wait) / float64(r.DurationMs)
	sev := resourceWaitShare.Level(ratio)
	if sev == None || wait <= executorStartMs { // starting executors, nothing else
		return nil
	}
	cost := p.cost(wait-executorStartMs, 0, "wall: time with no executor, beyond 20 s of executor start-up")
	return []Finding{{Severity: gate(sev, cost), Cost: cost,
		Detail: fmt.Sprintf("%s of %s (%.0f%%) passed with no executor to run work; the first executor came %s after start.",
			fmtMs(wait), fmtMs(r.DurationMs), 100*ratio, fmtMs(r.Phases.FirstExecutorDelayMs)),
		Evidence: map[string]any{"resourceWaitMs": wait, "durationMs": r.DurationMs, "ratio": round(ratio),
			"firstExecutorDelayMs": r.Phases.FirstExecutorDelayMs, "maxCoresSeen": r.CriticalPath.MaxCores,
			"requestedExecutors": r.Config.RequestedExecutors}}}
}

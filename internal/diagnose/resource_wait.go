package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var resourceWaitShare = Threshold{Metric: "phases.resourceWaitMs ÷ app duration", Warning: 0.10, Critical: 0.25,
	Gate: "cost: the wait beyond 20 s of the first executor start-up, plus all of the wait after dynamic allocation released executors, ≥ 5 % of the app and ≥ 1 s (else info), ≥ 25 % for critical",
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
	// Starting executors costs nothing the first time (up to 20 s); after
	// dynamic allocation gave its executors away, every second of waiting
	// for new ones is a cost the configuration chose.
	later, released := rewait(p)
	first := wait - later
	if sev == None || (first <= executorStartMs && later == 0) { // starting executors, nothing else
		return nil
	}
	how := "wall: time with no executor, beyond 20 s of executor start-up"
	if later > 0 {
		how = "wall: time with no executor beyond 20 s of the first start-up, and all of it after dynamic allocation released executors"
	}
	cost := p.cost(max(first-executorStartMs, 0)+later, 0, how)
	detail := fmt.Sprintf("%s of %s (%.0f%%) passed with no executor to run work; the first executor came %s after start.",
		fmtMs(wait), fmtMs(r.DurationMs), 100*ratio, fmtMs(r.Phases.FirstExecutorDelayMs))
	ev := map[string]any{"resourceWaitMs": wait, "durationMs": r.DurationMs, "ratio": round(ratio),
		"firstExecutorDelayMs": r.Phases.FirstExecutorDelayMs, "maxCoresSeen": r.CriticalPath.MaxCores,
		"requestedExecutors": r.Config.RequestedExecutors}
	if later > 0 {
		ev["waitAfterReleaseMs"], ev["releasedExecutors"] = later, released
		detail += fmt.Sprintf(" %s of it came later: dynamic allocation released %d executors while the app ran "+
			"(idle for spark.dynamicAllocation.executorIdleTimeout, %s) and the next work waited for new ones to start. "+
			"Keep some with spark.dynamicAllocation.minExecutors, or set a longer executorIdleTimeout, when the driver's "+
			"pauses are shorter than an executor's start.", fmtMs(later), released, idleTimeout(p))
	}
	return []Finding{{Severity: gate(sev, cost), Cost: cost, Detail: detail, Evidence: ev}}
}

// rewait is the part of the wait after the first executor came (the
// timeline's resource-wait intervals from then on), when dynamic
// allocation is on and the driver removed executors before the app's end:
// work waiting for executors it had given away. It returns 0 otherwise
// (executors lost to the cluster are not given away).
func rewait(p *Pass) (later int64, released int) {
	r := p.Result
	if !r.Config.DynamicAllocation {
		return 0, 0
	}
	first := r.StartTime + r.Phases.FirstExecutorDelayMs
	for _, iv := range r.Timeline {
		if iv.Phase == analyze.PhaseResourceWait && iv.End > first {
			later += iv.End - max(iv.Start, first)
		}
	}
	if later < second {
		return 0, 0
	}
	end := p.Attempt.EndTime
	for _, e := range r.Executors {
		if e.Loss.Cause == analyze.CauseDriver && e.RemovedTime > 0 && (end <= 0 || e.RemovedTime < end-second) {
			released++
		}
	}
	if released == 0 {
		return 0, 0
	}
	return later, released
}

// idleTimeout is the app's spark.dynamicAllocation.executorIdleTimeout,
// Spark's default when unset.
func idleTimeout(p *Pass) string {
	for _, kv := range p.Attempt.Env.SparkProperties {
		if kv[0] == "spark.dynamicAllocation.executorIdleTimeout" {
			return kv[1]
		}
	}
	return "60s by default"
}

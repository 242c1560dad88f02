package diagnose

import (
	"fmt"
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// IdleExecutors reports executor cores that were alive but ran no tasks.
var IdleExecutors = &Rule{
	ID:     "idle-executors",
	Title:  "Idle executors",
	Recipe: "troubleshoot/slow-spark-jobs.md#idle-executors",
	Doc: "Executor cores were alive (and paid for) while no stage ran — driver work, pauses between jobs: " +
		"core time held with no stage running ÷ (lifetime × cores). Cores idle beside a running stage are " +
		"low-parallelism's or data-skew's.",
	Thresholds: []Threshold{{Metric: "idle core ratio (no stage running)", Warning: 0.50, Critical: 0.80,
		Gate: "cost: the idle core time (core time only: idle executors do not slow the app) ≥ 1 min and ≥ 5 % of the " +
			"app's core time, else no finding; ≥ 25 % for critical",
		Source: "DataFlint WastedCoresAlertsReducer (50 %); Sparklens OneCoreComputeHours wasted; 80 % ours; the cost gate " +
			"replaces an app ≥ 10 min floor"}},
	Run: runIdleExecutors,
}

func runIdleExecutors(p *Pass) []Finding {
	r := p.Result
	local := true
	for _, e := range r.Executors {
		if e.ID != "driver" {
			local = false
		}
	}
	if local {
		return nil // the driver runs the tasks: no cores held beyond it
	}
	// Idle here means held while no stage ran (driver work, pauses between
	// jobs): cores idle beside a running stage are that stage's problem —
	// low parallelism or a straggler — and their rules count them.
	var noStage []analyze.Interval
	for _, iv := range r.Timeline {
		if iv.Phase == analyze.PhaseDriverOnly {
			noStage = append(noStage, iv)
		}
	}
	type idle struct {
		id     string
		idleMs int64 // core time held while no stage ran
	}
	var execs []idle
	var capMs, idleMs int64
	for _, e := range r.Executors {
		if e.ID == "driver" || e.Cores <= 0 {
			continue
		}
		end := e.RemovedTime
		if end < 0 {
			end = r.EndTime
		}
		var ms int64
		for _, iv := range noStage {
			ms += max(min(end, iv.End)-max(e.AddedTime, iv.Start), 0)
		}
		capMs += e.LifetimeMs * int64(e.Cores)
		idleMs += ms * int64(e.Cores)
		execs = append(execs, idle{e.ID, ms * int64(e.Cores)})
	}
	if capMs == 0 {
		return nil
	}
	ratio := min(float64(idleMs)/float64(capMs), 1)
	sev := level(ratio, 0.50, 0.80)
	cost := p.cost(0, idleMs, "core: executor cores held while no stage ran")
	if sev == None || !cost.Matters() { // idle cores cost only in aggregate
		return nil
	}
	sort.SliceStable(execs, func(i, j int) bool { return execs[i].idleMs > execs[j].idleMs })
	var ids []string
	for _, e := range execs {
		if e.idleMs > 0 && len(ids) < 20 {
			ids = append(ids, e.id)
		}
	}
	hours := float64(idleMs) / 3.6e6
	sev = gate(sev, cost)
	across := fmt.Sprintf("%d executors", len(execs))
	if len(execs) == 1 {
		across = "1 executor"
	}
	detail := fmt.Sprintf("Executor cores were held with no stage running %.0f%% of their lifetime: %.2f core-hours "+
		"paid for and unused across %s.", 100*ratio, hours, across)
	if interactive(p.Attempt.AppName) {
		sev = Info
		detail += " An interactive shell idles between commands; dynamic allocation releases its executors meanwhile."
	}
	return []Finding{{Severity: sev, ExecutorIDs: ids, Cost: cost,
		Detail: detail,
		Evidence: map[string]any{"idleCoreRatio": round(ratio), "idleCoreHours": round(hours),
			"coreHours": round(float64(capMs) / 3.6e6), "executors": len(execs)}}}
}

// interactive tells whether an application is an interactive shell, by the
// name Spark's shells give it.
func interactive(appName string) bool {
	switch appName {
	case "Spark shell", "PySparkShell", "SparkR", "sparklyr", "Spark Connect server":
		return true
	}
	return false
}

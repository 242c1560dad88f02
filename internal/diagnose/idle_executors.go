package diagnose

import (
	"fmt"
	"sort"
)

// IdleExecutors reports executor cores that were alive but ran no tasks.
var IdleExecutors = &Rule{
	ID:     "idle-executors",
	Title:  "Idle executors",
	Recipe: "troubleshoot/slow-spark-jobs.md#idle-executors",
	Doc:    "Executor cores were alive (and paid for) but idle: 1 − task time ÷ (lifetime × cores).",
	Thresholds: []Threshold{{Metric: "idle core ratio", Warning: 0.50, Critical: 0.80,
		Gate: "cost: the idle core time (core time only: idle executors do not slow the app) ≥ 1 min and ≥ 5 % of the " +
			"app's core time, else no finding; ≥ 25 % for critical",
		Source: "DataFlint WastedCoresAlertsReducer (50 %); Sparklens OneCoreComputeHours wasted; 80 % ours; the cost gate " +
			"replaces an app ≥ 10 min floor"}},
	Run: runIdleExecutors,
}

func runIdleExecutors(p *Pass) []Finding {
	r := p.Result
	var capMs, busy int64
	type idle struct {
		id    string
		util  float64
		hours float64
	}
	var execs []idle
	local := true
	for _, e := range r.Executors {
		if e.ID != "driver" {
			local = false
		}
	}
	if local {
		return nil // the driver runs the tasks: no cores held beyond it
	}
	for _, e := range r.Executors {
		if (e.ID == "driver") != local || e.Cores <= 0 {
			continue
		}
		capMs += e.LifetimeMs * int64(e.Cores)
		busy += min(e.BusyMs, e.LifetimeMs*int64(e.Cores))
		execs = append(execs, idle{e.ID, e.Utilization, e.WastedCoreHours})
	}
	if capMs == 0 {
		return nil
	}
	ratio := 1 - float64(busy)/float64(capMs)
	sev := level(ratio, 0.50, 0.80)
	cost := p.cost(0, capMs-busy, "core: executor cores alive and running no task")
	if sev == None || !cost.Matters() { // idle cores cost only in aggregate
		return nil
	}
	sort.SliceStable(execs, func(i, j int) bool { return execs[i].hours > execs[j].hours })
	var ids []string
	for _, e := range execs {
		if e.util < 0.5 && len(ids) < 20 {
			ids = append(ids, e.id)
		}
	}
	hours := float64(capMs-busy) / 3.6e6
	sev = gate(sev, cost)
	detail := fmt.Sprintf("Executor cores were idle %.0f%% of their lifetime: %.2f core-hours paid for and unused across %d executors.",
		100*ratio, hours, len(execs))
	if interactive(p.Attempt.AppName) {
		sev = Info
		detail += " An interactive shell idles between commands; dynamic allocation releases its executors meanwhile."
	}
	return []Finding{{Severity: sev, ExecutorIDs: ids, Cost: cost,
		Detail: detail,
		Evidence: map[string]any{"idleCoreRatio": round(ratio), "idleCoreHours": round(hours),
			"coreHours": round(float64(capMs) / 3.6e6), "busyCoreHours": round(float64(busy) / 3.6e6),
			"executors": len(execs)}}}
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

package diagnose

import (
	"fmt"
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var idleCores = Threshold{Metric: "idle core ratio", Warning: 0.50, Critical: 0.80,
	Gate: "cost: the idle core time (core time only: idle executors do not slow the app) ≥ 1 min and ≥ 5 % of the " +
		"app's core time, else no finding; ≥ 25 % for critical",
	Source: "DataFlint WastedCoresAlertsReducer (50 %); Sparklens OneCoreComputeHours wasted; 80 % ours; the cost gate " +
		"replaces an app ≥ 10 min floor"}

// IdleExecutors reports executor cores that were alive but ran no tasks.
var IdleExecutors = &Rule{
	ID:     "idle-executors",
	Title:  "Idle executors",
	Recipe: "troubleshoot/slow-spark-jobs.md#idle-executors",
	Doc: "Executor cores were alive (and paid for) but idle: 1 − task time ÷ (lifetime × cores), less the idle " +
		"cores low-parallelism already counts beside its stages.",
	Thresholds: []Threshold{idleCores},
	Run:        runIdleExecutors,
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
	// Idle cores beside a stage with too few tasks are low-parallelism's
	// cost: subtracted here, so that one idle core is one finding's cost.
	// The rest — executors held while no stage ran, or beside short
	// stages of few tasks (an over-sized cluster) — is this rule's.
	var lowPar int64
	for i := range r.Stages {
		if sev, idle, _ := lowParallelism(&r.Stages[i]); sev != None {
			lowPar += idle
		}
	}
	type idle struct {
		id     string
		idleMs int64
	}
	var execs []idle
	var capMs, busy int64
	slots := taskSlots(r)
	running := unfinishedBusy(p)
	for _, e := range r.Executors {
		if e.ID == "driver" || e.Cores <= 0 {
			continue
		}
		cores := int64(e.Cores)
		if slots > 0 {
			cores = min(cores, int64(slots))
		}
		capMs += e.LifetimeMs * cores
		b := min(e.BusyMs+running[e.ID], e.LifetimeMs*cores)
		busy += b
		execs = append(execs, idle{e.ID, e.LifetimeMs*cores - b})
	}
	if capMs == 0 {
		return nil
	}
	idleMs := max(capMs-busy-lowPar, 0)
	ratio := min(float64(idleMs)/float64(capMs), 1)
	sev := idleCores.Level(ratio)
	cost := p.cost(0, idleMs, "core: executor cores alive and running no task, less low-parallelism's")
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
	detail := fmt.Sprintf("Executor cores were idle %.0f%% of their lifetime: %.2f core-hours paid for and unused "+
		"across %s.", 100*ratio, hours, across)
	if interactive(p.Attempt.AppName) {
		sev = Info
		detail += " An interactive shell idles between commands; dynamic allocation releases its executors meanwhile."
	}
	return []Finding{{Severity: sev, ExecutorIDs: ids, Cost: cost,
		Detail: detail,
		Evidence: map[string]any{"idleCoreRatio": round(ratio), "idleCoreHours": round(hours),
			"coreHours": round(float64(capMs) / 3.6e6), "busyCoreHours": round(float64(busy) / 3.6e6),
			"lowParallelismCoreHours": round(float64(lowPar) / 3.6e6), "executors": len(execs),
			"taskSlotsPerExecutor": slots}}}
}

// taskSlots is how many tasks an executor of a RAPIDS application runs at
// once, as its GPU resources allow; 0 for other applications (every core
// is a slot). A core beyond the slots cannot run a task: it is not idle
// but unusable, the GPU being the bottleneck — and tasks waiting for the
// GPU (its semaphore) are busy, in their task time.
func taskSlots(r *analyze.Result) int {
	if r.Plugins.RAPIDS == nil {
		return 0
	}
	return r.Plugins.RAPIDS.TaskSlots
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

// unfinishedBusy is, per executor, the time of the tasks still running
// when the log ends — their executor held a core for them from launch to
// its removal or the application's end (a job the stop cancelled ends its
// tasks without a task end): busy, not idle.
func unfinishedBusy(p *Pass) map[string]int64 {
	out := map[string]int64{}
	end := p.Result.EndTime
	for _, s := range p.Attempt.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime != 0 || t.LaunchTime <= 0 {
				continue
			}
			stop := end
			if e := p.Attempt.Executor(t.ExecutorID); e != nil && e.RemoveTime > 0 {
				stop = min(stop, e.RemoveTime)
			}
			out[t.ExecutorID] += max(stop-t.LaunchTime, 0)
		}
	}
	return out
}

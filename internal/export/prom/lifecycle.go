package prom

import (
	"math"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

// Context is what names an application outside Spark: the orchestrator
// run and task that started it and the W3C trace it belongs to. Labels of
// spark_app_info, so dashboards can pick apps by run, task or trace; ""
// where the log names none (Prometheus then has no such label).
type Context struct {
	RunSource, RunID, RunName, RunTask string
	TraceID                            string
}

// propTraceParent is the session's W3C trace context as a Spark property
// (a caller sets it at submit; Spark copies it into every job's local
// properties, where package sparkevent reads it per job).
const propTraceParent = "spark.otel.traceparent"

// traceID is the trace id of a W3C traceparent
// ("00-<32 hex>-<16 hex>-<2 hex>"), "" when the value is not one (or the
// all-zero invalid id): a label value must not carry arbitrary text.
func traceID(tp string) string {
	parts := strings.Split(strings.TrimSpace(tp), "-")
	if len(parts) != 4 || len(parts[1]) != 32 || strings.Trim(parts[1], "0") == "" {
		return ""
	}
	for _, c := range parts[1] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return ""
		}
	}
	return parts[1]
}

// phaseEnded is the spark_app_phase state of an application that ended.
const phaseEnded = "ended"

// phaseStates are spark_app_phase's phase values: the analyzer's phases,
// then ended.
func phaseStates() []string {
	out := make([]string, 0, len(phases)+1)
	for _, p := range phases {
		out = append(out, p.label)
	}
	return append(out, phaseEnded)
}

// currentPhase is the phase an application is in now: a running one's
// last timeline interval (its timeline runs to the analysis time; none
// yet, at its start: waiting for executors), ended for one that is not
// running.
func currentPhase(a *App) string {
	r := a.Result
	if !a.Running() {
		return phaseEnded
	}
	last := analyze.PhaseResourceWait
	if len(r.Timeline) > 0 {
		last = r.Timeline[len(r.Timeline)-1].Phase
	}
	for _, p := range phases {
		if p.p == last {
			return p.label
		}
	}
	return phaseEnded
}

// removedCauses are the cause label values of removed executors:
// analyze's loss causes, bounded, with "unknown" for a reason it could not
// read (Spark's free-text reason never becomes a label).
var removedCauses = [...]analyze.Cause{analyze.CauseContainerMemory, analyze.CauseJVMOOM, analyze.CauseSigterm,
	analyze.CausePreempted, analyze.CauseHeartbeat, analyze.CauseDecommission, analyze.CauseIdle,
	analyze.CauseDriver, analyze.CauseNodeLost, analyze.CauseUnknown}

// removedCause is the cause label of a removed executor.
func removedCause(e *analyze.Executor) string {
	for _, c := range removedCauses {
		if e.Loss.Cause == c {
			return string(c)
		}
	}
	return string(analyze.CauseUnknown)
}

// removed reports whether the log removed the executor.
func removed(e *analyze.Executor) bool { return e.ID != "driver" && e.RemovedTime > 0 }

// aliveExecutors counts a running application's executors that are added
// and not removed (the driver not counted); 0 once the app ended.
func aliveExecutors(a *App) float64 {
	if !a.Running() {
		return 0
	}
	n := 0
	for i := range a.Result.Executors {
		if e := &a.Result.Executors[i]; e.ID != "driver" && e.RemovedTime == model.NoTime {
			n++
		}
	}
	return float64(n)
}

// neededExecutors is what Spark's ExecutorAllocationManager would ask for
// now (its maxNumExecutorsNeeded): the tasks of the active stages not yet
// succeeded, running or pending, over the tasks an executor runs at once,
// rounded up — within spark.dynamicAllocation.min/maxExecutors when
// dynamic allocation is on. 0 once the app ended.
func neededExecutors(a *App) float64 {
	r := a.Result
	if !a.Running() {
		return 0
	}
	tasks := 0
	for i := range r.Stages {
		if s := &r.Stages[i]; s.Status == model.StageActive {
			tasks += max(0, s.NumTasks-s.Succeeded)
		}
	}
	perExec := max(1, r.Config.ExecutorCores/max(1, a.Alloc.TaskCPUs))
	if r.Config.ExecutorCores == 0 {
		for i := range r.Executors {
			if e := &r.Executors[i]; e.ID != "driver" {
				perExec = max(1, e.Cores/max(1, a.Alloc.TaskCPUs))
				break
			}
		}
	}
	n := int(math.Ceil(float64(tasks) * a.Alloc.Ratio / float64(perExec)))
	if r.Config.DynamicAllocation {
		n = max(n, a.Alloc.Min)
		if r.Config.RequestedExecutors > 0 {
			n = min(n, r.Config.RequestedExecutors)
		}
	}
	return float64(n)
}

// Alloc is the executor allocation settings the dynamic-allocation series
// read beside analyze.Config.
type Alloc struct {
	Min      int     // spark.dynamicAllocation.minExecutors (0)
	TaskCPUs int     // spark.task.cpus (1)
	Ratio    float64 // spark.dynamicAllocation.executorAllocationRatio (1)
}

// allocOf reads Alloc from Spark properties, Spark's defaults where unset
// or unreadable.
func allocOf(props [][2]string) Alloc {
	al := Alloc{TaskCPUs: 1, Ratio: 1}
	for _, kv := range props {
		v := strings.TrimSpace(kv[1])
		switch kv[0] {
		case "spark.dynamicAllocation.minExecutors":
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				al.Min = n
			}
		case "spark.task.cpus":
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				al.TaskCPUs = n
			}
		case "spark.dynamicAllocation.executorAllocationRatio":
			if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && f <= 1 {
				al.Ratio = f
			}
		}
	}
	return al
}

// bound is one spark_dynamic_allocation_executors series.
type bound struct {
	label string
	n     int
}

// allocBounds are the spark_dynamic_allocation_executors series of an
// application with dynamic allocation on: min, initial, and max when set
// (Spark's default max is unbounded: no series).
func allocBounds(a *App) []bound {
	c := a.Result.Config
	if !c.DynamicAllocation {
		return nil
	}
	out := []bound{{"min", a.Alloc.Min}, {"initial", c.InitialExecutors}}
	if c.RequestedExecutors > 0 {
		out = append(out, bound{"max", c.RequestedExecutors})
	}
	return out
}

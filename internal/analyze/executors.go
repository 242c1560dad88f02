package analyze

import (
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// execAcc accumulates one executor's task totals over all stages.
type execAcc struct {
	busy, run, gc, gcShare int64
	tasks, failed          int
	lostFailed             int
	oomErrors              int
	causedByApp            bool
	unrelated              bool
	lossReason             string
}

// executorAccs adds up, per executor, the finished task attempts of the
// stages (in their order: the first loss reason seen is kept): busy, run
// and GC time, failures, and what failed attempts say about lost executors
// (ExecutorLostFailure) and OutOfMemoryErrors.
func executorAccs(execs []*model.Executor, stages []*model.StageAttempt) map[string]*execAcc {
	acc := make(map[string]*execAcc, len(execs))
	for _, e := range execs {
		acc[e.ID] = &execAcc{}
	}
	for _, s := range stages {
		for _, t := range s.Tasks {
			if t.FinishTime == 0 {
				continue
			}
			if x := acc[t.ExecutorID]; x != nil {
				run, gc := t.Metric(model.TMExecutorRunTime), t.Metric(model.TMJvmGcTime)
				x.busy = model.SatAdd(x.busy, model.Span(t.LaunchTime, t.FinishTime))
				x.tasks++
				if t.Failed {
					x.failed++
				}
				x.run = model.SatAdd(x.run, run)
				x.gc = model.SatAdd(x.gc, gc)
				x.gcShare = model.SatAdd(x.gcShare, min(max(gc, 0), max(run, 0)))
			}
			if t.Successful() || killedAttempt(t) {
				continue
			}
			if l := t.Loss(); l != nil {
				if x := acc[l.ExecutorID]; x != nil {
					x.lostFailed++
					x.causedByApp = x.causedByApp || l.CausedByApp
					x.unrelated = x.unrelated || !l.CausedByApp
					if x.lossReason == "" {
						x.lossReason = l.Reason
					}
				}
			}
			if x := acc[t.ExecutorID]; x != nil && strings.Contains(t.ErrorMessage(), "OutOfMemoryError") {
				x.oomErrors++
			}
		}
	}
	return acc
}

// Indexes into model.ExecutorMetricNames (Spark's fixed order) that model
// does not name; executors_test.go checks them against the names.
const (
	metricOtherRSS     = 15 // ProcessTreeOtherRSSMemory
	metricMajorGCCount = 18 // MajorGCCount
)

// executorStats computes one executor's statistics; end is the app's end
// (or last event) time, closing executors that were never removed.
func executorStats(e *model.Executor, a *execAcc, end int64) Executor {
	out := Executor{ID: e.ID, Host: e.Hostname(), Cores: e.TotalCores, AddedTime: e.AddTime,
		RemovedTime: e.RemoveTime, RemovedReason: e.RemoveReason,
		BusyMs: a.busy, RunTimeMs: a.run, GCTimeMs: a.gc, GCShareMs: a.gcShare, Tasks: a.tasks, FailedTasks: a.failed}
	stop := e.RemoveTime
	if stop == model.NoTime {
		stop = end
	}
	if e.AddTime != model.NoTime && stop > e.AddTime {
		out.LifetimeMs = stop - e.AddTime
	}
	if capMs := out.LifetimeMs * int64(out.Cores); capMs > 0 {
		out.Utilization = min(Ratio(a.busy, capMs), 1)
		out.WastedCoreHours = float64(max(capMs-a.busy, 0)) / 3.6e6
	}
	if e.Peak.Set {
		v := &e.Peak.Values
		out.HasPeaks = true
		out.PeakJVMHeapBytes = v[model.MetricJVMHeapMemory]
		out.PeakJVMOffHeapBytes = v[model.MetricJVMOffHeapMemory]
		out.PeakPythonRSSBytes = v[model.MetricProcessTreePythonRSSMemory]
		out.PeakJVMRSSBytes = v[model.MetricProcessTreeJVMRSSMemory]
		out.PeakOtherRSSBytes = v[metricOtherRSS]
		out.MajorGCCount = v[metricMajorGCCount]
	}
	reason := e.RemoveReason
	if reason == "" {
		reason = a.lossReason
	}
	cause, code := ClassifyLoss(reason)
	if e.RemoveTime == model.NoTime && a.lostFailed == 0 {
		cause = CauseNone
	}
	// On YARN a heap OOM ends as SIGTERM (-XX:OnOutOfMemoryError='kill %p'):
	// the tasks' OutOfMemoryError names the cause the exit code hides.
	if a.oomErrors > 0 && (cause == CauseSigterm || cause == CauseUnknown) {
		cause = CauseJVMOOM
	}
	out.OOMTaskErrors = a.oomErrors
	out.Loss = Loss{Cause: cause, ExitCode: code, CausedByApp: a.causedByApp, Unrelated: a.unrelated && !a.causedByApp,
		FailedTasks: a.lostFailed}
	return out
}

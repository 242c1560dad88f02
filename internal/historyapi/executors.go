package historyapi

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// executorList lists executors as the History Server does: /executors the
// active ones by id descending, /allexecutors all by id ascending. For the
// driver it reports the application's run time as totalDuration and the
// driver JVM's TotalGCTime peak as totalGCTime (AppStatusStore.replaceExec).
func executorList(a *model.Attempt, activeOnly bool, now int64) []any {
	execs := Executors(a, activeOnly, now)
	out := make([]any, 0, len(execs))
	for i := range execs {
		out = append(out, executorSummary(execs[i].exec))
	}
	return out
}

// ExecutorSummary is one executor as the History Server's
// ExecutorSummary has it: the typed value /executors and /allexecutors
// answer and serve's executors page reads.
type ExecutorSummary struct {
	ID, HostPort                                           string
	IsActive                                               bool
	TotalCores, FailedTasks, CompletedTasks                int
	TotalDuration, TotalGCTime, TotalInputBytes, MaxMemory int64
	TotalShuffleRead, TotalShuffleWrite                    int64
	AddTime, RemoveTime                                    string // the API's dates; RemoveTime "" while it runs
	RemoveReason                                           string
	ExecutorLogs                                           [][2]string
	// Peak is peakMemoryMetrics by metric name; nil when none was reported.
	Peak map[string]int64

	exec *model.Executor // as shown (the driver's totals replaced)
}

// Executors lists executors as the History Server does: /executors the
// active ones by id descending, /allexecutors all by id ascending. For the
// driver it reports the application's run time as totalDuration and the
// driver JVM's TotalGCTime peak as totalGCTime (AppStatusStore.replaceExec).
func Executors(a *model.Attempt, activeOnly bool, now int64) []ExecutorSummary {
	execs := make([]*model.Executor, 0, len(a.Executors))
	for _, e := range a.Executors {
		// The fallback storage's block manager is not an executor.
		if e.ID == "fallback" {
			continue
		}
		if !activeOnly || e.IsActive {
			execs = append(execs, e)
		}
	}
	sort.Slice(execs, func(i, j int) bool {
		if activeOnly {
			return execs[i].ID > execs[j].ID
		}
		return execs[i].ID < execs[j].ID
	})
	out := make([]ExecutorSummary, 0, len(execs))
	for _, e := range execs {
		if e.ID == "driver" || e.ID == "<driver>" {
			d := *e
			if a.StartTime != model.NoTime {
				if a.Completed {
					d.TotalDuration = model.Span(a.StartTime, a.EndTime)
				} else {
					d.TotalDuration = model.Span(a.StartTime, now)
				}
			}
			if e.Peak.Set {
				d.TotalGCTime = e.Peak.Values[model.MetricTotalGCTime]
			}
			e = &d
		}
		out = append(out, executor(e))
	}
	return out
}

// executor is e's typed summary.
func executor(e *model.Executor) ExecutorSummary {
	x := ExecutorSummary{ID: e.ID, HostPort: e.HostPort, IsActive: e.IsActive, TotalCores: e.TotalCores,
		FailedTasks: e.FailedTasks, CompletedTasks: e.CompletedTasks, TotalDuration: e.TotalDuration,
		TotalGCTime: e.TotalGCTime, TotalInputBytes: e.TotalInputBytes, MaxMemory: e.MaxMemory,
		TotalShuffleRead: e.TotalShuffleRead, TotalShuffleWrite: e.TotalShuffleWrite, AddTime: date(e.AddTime),
		ExecutorLogs: e.Logs, exec: e}
	if x.HostPort == "" {
		x.HostPort = e.Host
	}
	if e.RemoveTime != model.NoTime {
		x.RemoveTime = date(e.RemoveTime)
	}
	if e.RemoveReason != "" || e.RemoveTime != model.NoTime {
		x.RemoveReason = e.RemoveReason
	}
	if e.Peak.Set {
		x.Peak = map[string]int64{}
		for i, n := range model.ExecutorMetricNames() {
			x.Peak[n] = e.Peak.Values[i]
		}
	}
	return x
}

func peakObj(m *model.ExecutorMetrics) *Obj {
	o := obj()
	for i, n := range model.ExecutorMetricNames() {
		o.Set(n, m.Values[i])
	}
	return o
}

func executorSummary(e *model.Executor) *Obj {
	hostPort := e.HostPort
	if hostPort == "" {
		hostPort = e.Host
	}
	stages := make([]int, 0, len(e.ExcludedInStages))
	for s := range e.ExcludedInStages {
		stages = append(stages, s)
	}
	sort.Ints(stages)
	o := obj().Set("id", e.ID).Set("hostPort", hostPort).Set("isActive", e.IsActive).
		Set("rddBlocks", e.RDDBlocks).Set("memoryUsed", e.MemoryUsed).Set("diskUsed", e.DiskUsed).
		Set("totalCores", e.TotalCores).Set("maxTasks", e.MaxTasks).Set("activeTasks", e.ActiveTasks).
		Set("failedTasks", e.FailedTasks).Set("completedTasks", e.CompletedTasks).Set("totalTasks", e.TotalTasks).
		Set("totalDuration", e.TotalDuration).Set("totalGCTime", e.TotalGCTime).
		Set("totalInputBytes", e.TotalInputBytes).Set("totalShuffleRead", e.TotalShuffleRead).
		Set("totalShuffleWrite", e.TotalShuffleWrite).Set("isBlacklisted", e.IsExcluded).
		Set("maxMemory", e.MaxMemory).Set("addTime", date(e.AddTime))
	if e.RemoveTime != model.NoTime {
		o.Set("removeTime", date(e.RemoveTime))
	}
	if e.RemoveReason != "" || e.RemoveTime != model.NoTime {
		o.Set("removeReason", e.RemoveReason)
	}
	o.Set("executorLogs", pairsObj(e.Logs))
	if e.HasMemoryInfo() {
		o.Set("memoryMetrics", obj().Set("usedOnHeapStorageMemory", e.UsedOnHeap).
			Set("usedOffHeapStorageMemory", e.UsedOffHeap).Set("totalOnHeapStorageMemory", e.TotalOnHeap).
			Set("totalOffHeapStorageMemory", e.TotalOffHeap))
	}
	o.Set("blacklistedInStages", intsAny(stages))
	if e.Peak.Set {
		o.Set("peakMemoryMetrics", peakObj(&e.Peak))
	}
	res := obj()
	for _, r := range e.Resources {
		res.Set(r.Name, obj().Set("name", r.Name).Set("addresses", stringsAny(r.Addresses)))
	}
	o.Set("attributes", pairsObj(e.Attributes)).Set("resources", res).
		Set("resourceProfileId", e.ResourceProfileID).Set("isExcluded", e.IsExcluded).
		Set("excludedInStages", intsAny(stages))
	return o
}

func miscList(a *model.Attempt) []any {
	out := []any{}
	for _, p := range a.Misc {
		o := obj().Set("id", p.ID).Set("hostPort", p.HostPort).Set("isActive", p.IsActive).
			Set("totalCores", p.TotalCores).Set("addTime", date(p.AddTime))
		if p.RemoveTime != model.NoTime {
			o.Set("removeTime", date(p.RemoveTime))
		}
		o.Set("processLogs", pairsObj(p.Logs))
		out = append(out, o)
	}
	return out
}

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
	out := make([]any, 0, len(execs))
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
		out = append(out, executorSummary(e))
	}
	return out
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

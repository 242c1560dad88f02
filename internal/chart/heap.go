// Package chart computes the series sparkdx's charts draw, once, from the
// replayed model and its analysis, so that the HTML report and serve's
// pages show the same figures for one log: the renderers only scale and
// draw them. It owns the executors' JVM heap over time (Heap), the stage
// timeline (Stages), the busy task slots per executor over time (SlotBusy)
// and the task durations per executor (Durations).
package chart

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Reading is one executor's JVM heap peak at one time.
type Reading struct {
	T     int64 // epoch ms
	Bytes int64
}

// Heap gathers JVM heap readings per executor from the log: task ends
// carry the executor's peaks since the previous task end ("Task Executor
// Metrics", Spark 3+), and stage ends carry per-executor stage peaks
// (SparkListenerStageExecutorMetrics). Readings of zero (logs without
// executor memory metrics write zeros) are left out; each executor's are
// in time order, and ids lists the executors with readings in the
// model's order.
func Heap(a *model.Attempt) (ids []string, series map[string][]Reading) {
	series = map[string][]Reading{}
	if a == nil {
		return nil, series
	}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime <= 0 || t.ExecMetrics() == nil {
				continue
			}
			if v := t.ExecMetrics().Values[model.MetricJVMHeapMemory]; v > 0 {
				series[t.ExecutorID] = append(series[t.ExecutorID], Reading{t.FinishTime, v})
			}
		}
		if s.CompletionTime <= 0 {
			continue
		}
		for _, es := range s.ExecSummary {
			if !es.Peak.Set {
				continue
			}
			if v := es.Peak.Values[model.MetricJVMHeapMemory]; v > 0 {
				series[es.ExecutorID] = append(series[es.ExecutorID], Reading{s.CompletionTime, v})
			}
		}
	}
	for _, e := range a.Executors {
		if len(series[e.ID]) > 0 {
			ids = append(ids, e.ID)
		}
	}
	for _, ss := range series {
		sort.Slice(ss, func(i, j int) bool { return ss[i].T < ss[j].T })
	}
	return ids, series
}

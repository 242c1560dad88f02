package historyapi

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// quantileValues picks Spark's quantiles from sorted values:
// index min(q*count, count-1).
func quantileValues(sorted []float64, quantiles []float64) []any {
	n := int64(len(sorted))
	out := make([]any, len(quantiles))
	for i, q := range quantiles {
		idx := min(int64(q*float64(n)), n-1)
		out[i] = sorted[idx]
	}
	return out
}

type metricFn func(a *model.Task, duration int64) int64

// taskSummary is /taskSummary (TaskMetricDistributions): quantiles over the
// successful tasks that reported metrics, or nil when there are none.
func taskSummary(s *model.StageAttempt, quantiles []float64) *Obj {
	var tasks []*model.Task
	for _, t := range s.Tasks {
		if t.HasMetrics && t.Successful() {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	durations := make([]int64, len(tasks))
	for i, t := range tasks {
		durations[i] = t.FinishTime - t.LaunchTime
	}
	vals := make([]float64, len(tasks))
	dist := func(f metricFn) []any {
		for i, t := range tasks {
			vals[i] = float64(f(t, durations[i]))
		}
		sort.Float64s(vals)
		return quantileValues(vals, quantiles)
	}
	m := func(get func(m *model.TaskMetrics) int64) []any {
		return dist(func(t *model.Task, _ int64) int64 { return get(&t.Metrics) })
	}
	return obj().Set("quantiles", floatsAny(quantiles)).
		Set("duration", dist(func(_ *model.Task, d int64) int64 { return d })).
		Set("executorDeserializeTime", m(func(m *model.TaskMetrics) int64 { return m.ExecutorDeserializeTime })).
		Set("executorDeserializeCpuTime", m(func(m *model.TaskMetrics) int64 { return m.ExecutorDeserializeCpuTime })).
		Set("executorRunTime", m(func(m *model.TaskMetrics) int64 { return m.ExecutorRunTime })).
		Set("executorCpuTime", m(func(m *model.TaskMetrics) int64 { return m.ExecutorCpuTime })).
		Set("resultSize", m(func(m *model.TaskMetrics) int64 { return m.ResultSize })).
		Set("jvmGcTime", m(func(m *model.TaskMetrics) int64 { return m.JvmGcTime })).
		Set("resultSerializationTime", m(func(m *model.TaskMetrics) int64 { return m.ResultSerializationTime })).
		Set("gettingResultTime", dist(func(t *model.Task, d int64) int64 { return gettingResultTime(t, d) })).
		Set("schedulerDelay", dist(func(t *model.Task, d int64) int64 { return schedulerDelay(t, d) })).
		Set("peakExecutionMemory", m(func(m *model.TaskMetrics) int64 { return m.PeakExecutionMemory })).
		Set("memoryBytesSpilled", m(func(m *model.TaskMetrics) int64 { return m.MemoryBytesSpilled })).
		Set("diskBytesSpilled", m(func(m *model.TaskMetrics) int64 { return m.DiskBytesSpilled })).
		Set("inputMetrics", obj().
			Set("bytesRead", m(func(m *model.TaskMetrics) int64 { return m.InputBytesRead })).
			Set("recordsRead", m(func(m *model.TaskMetrics) int64 { return m.InputRecordsRead }))).
		Set("outputMetrics", obj().
			Set("bytesWritten", m(func(m *model.TaskMetrics) int64 { return m.OutputBytesWritten })).
			Set("recordsWritten", m(func(m *model.TaskMetrics) int64 { return m.OutputRecordsWritten }))).
		Set("shuffleReadMetrics", obj().
			Set("readBytes", m(func(m *model.TaskMetrics) int64 { return m.ShuffleReadBytes() })).
			Set("readRecords", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.RecordsRead })).
			Set("remoteBlocksFetched", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.RemoteBlocksFetched })).
			Set("localBlocksFetched", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.LocalBlocksFetched })).
			Set("fetchWaitTime", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.FetchWaitTime })).
			Set("remoteBytesRead", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.RemoteBytesRead })).
			Set("remoteBytesReadToDisk", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.RemoteBytesReadToDisk })).
			Set("totalBlocksFetched", m(func(m *model.TaskMetrics) int64 {
				return m.ShuffleRead.RemoteBlocksFetched + m.ShuffleRead.LocalBlocksFetched
			})).
			Set("remoteReqsDuration", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.RemoteReqsDuration })).
			Set("shufflePushReadMetricsDist", obj().
				Set("corruptMergedBlockChunks", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.CorruptMergedBlockChunks })).
				Set("mergedFetchFallbackCount", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.MergedFetchFallbackCount })).
				Set("remoteMergedBlocksFetched", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.RemoteMergedBlocksFetched })).
				Set("localMergedBlocksFetched", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.LocalMergedBlocksFetched })).
				Set("remoteMergedChunksFetched", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.RemoteMergedChunksFetched })).
				Set("localMergedChunksFetched", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.LocalMergedChunksFetched })).
				Set("remoteMergedBytesRead", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.RemoteMergedBytesRead })).
				Set("localMergedBytesRead", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.LocalMergedBytesRead })).
				Set("remoteMergedReqsDuration", m(func(m *model.TaskMetrics) int64 { return m.ShuffleRead.Push.RemoteMergedReqsDuration })))).
		Set("shuffleWriteMetrics", obj().
			Set("writeBytes", m(func(m *model.TaskMetrics) int64 { return m.ShuffleWrite.BytesWritten })).
			Set("writeRecords", m(func(m *model.TaskMetrics) int64 { return m.ShuffleWrite.RecordsWritten })).
			Set("writeTime", m(func(m *model.TaskMetrics) int64 { return m.ShuffleWrite.WriteTime })))
}

// executorDistributions is ExecutorMetricsDistributions over the stage's
// per-executor summaries.
func executorDistributions(s *model.StageAttempt, quantiles []float64) *Obj {
	sums := s.ExecSummary
	if len(sums) == 0 {
		return nil
	}
	dist := func(f func(e *model.ExecutorStageSummary) int64) []any {
		vals := make([]float64, len(sums))
		for i, e := range sums {
			vals[i] = float64(f(e))
		}
		sort.Float64s(vals)
		return quantileValues(vals, quantiles)
	}
	peaks := obj()
	var withPeak []*model.ExecutorStageSummary
	for _, e := range sums {
		if e.Peak.Set {
			withPeak = append(withPeak, e)
		}
	}
	for i, name := range model.ExecutorMetricNames {
		vals := make([]float64, len(withPeak))
		for j, e := range withPeak {
			vals[j] = float64(e.Peak.Values[i])
		}
		sort.Float64s(vals)
		if len(vals) == 0 {
			peaks.Set(name, []any{})
			continue
		}
		peaks.Set(name, quantileValues(vals, quantiles))
	}
	return obj().Set("quantiles", floatsAny(quantiles)).
		Set("taskTime", dist(func(e *model.ExecutorStageSummary) int64 { return e.TaskTime })).
		Set("failedTasks", dist(func(e *model.ExecutorStageSummary) int64 { return int64(e.FailedTasks) })).
		Set("succeededTasks", dist(func(e *model.ExecutorStageSummary) int64 { return int64(e.SucceededTasks) })).
		Set("killedTasks", dist(func(e *model.ExecutorStageSummary) int64 { return int64(e.KilledTasks) })).
		Set("inputBytes", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.InputBytesRead })).
		Set("inputRecords", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.InputRecordsRead })).
		Set("outputBytes", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.OutputBytesWritten })).
		Set("outputRecords", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.OutputRecordsWritten })).
		Set("shuffleRead", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.ShuffleReadBytes() })).
		Set("shuffleReadRecords", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.ShuffleRead.RecordsRead })).
		Set("shuffleWrite", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.ShuffleWrite.BytesWritten })).
		Set("shuffleWriteRecords", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.ShuffleWrite.RecordsWritten })).
		Set("memoryBytesSpilled", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.MemoryBytesSpilled })).
		Set("diskBytesSpilled", dist(func(e *model.ExecutorStageSummary) int64 { return e.Metrics.DiskBytesSpilled })).
		Set("peakMemoryMetrics", peaks)
}

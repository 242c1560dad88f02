package historyapi

import (
	"cmp"
	"math"
	"slices"
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
		if idx < 0 || math.IsNaN(q) { // Spark fails here; answer NaN instead
			out[i] = "NaN"
			continue
		}
		out[i] = sorted[idx]
	}
	return out
}

// The task summary reproduces how the History Server computes it over its
// disk store (TaskDataWrapper indexes): each metric is an index of the
// stage's tasks, scanned from 0 upwards, and the quantile positions come
// from the number of tasks with a non-negative run time. Metrics of
// unsuccessful tasks are stored as -v-1 and of tasks without metrics as -1,
// so they drop out of most scans, but not out of duration, scheduler delay,
// getting-result time and the shuffle totals, exactly as in Spark.

// stored is a metric as TaskDataWrapper stores it.
func stored(t *model.Task, v int64) int64 {
	switch {
	case !t.HasMetrics:
		return -1
	case t.Successful():
		return v
	default:
		return -v - 1
	}
}

// hasStoredMetrics says whether a task counts in the shuffle totals'
// indexes (read bytes, blocks fetched). An unsuccessful task's metrics
// are stored as -v-1 (SPARK-26260), and one whose stored
// executorDeserializeTime is -1 (0 ms of deserialization) drops out of
// them on both Spark lines: the executor-oom scenario's OOM and
// FetchFailed attempts (both 0 ms) are not in Spark's shuffle read
// quantiles, while other failed attempts are (their true sum on Spark 4).
// Scheduler delay and getting-result time still count such a task, as
// Spark's do (the shared logs' failed attempts).
func hasStoredMetrics(t *model.Task) bool {
	return t.HasMetrics && stored(t, t.Metrics.ExecutorDeserializeTime) != -1
}

// indexed is a task's position key in one index and the value read there.
type indexed struct {
	key, value int64
	taskID     int64
}

type summaryMetric func(t *model.Task, duration int64) (key, value int64)

func plain(get func(m *model.TaskMetrics) int64) summaryMetric {
	return func(t *model.Task, _ int64) (int64, int64) {
		v := stored(t, get(&t.Metrics))
		return v, v
	}
}

// sum2 is an index over two metrics (shuffle read bytes, total blocks),
// keyed and valued by their true sum when the task has metrics, also for
// an unsuccessful task. (Spark 3.5's History Server valued it by the sum of
// the stored fields, -v-1 each for such a task; Spark 4's gives the true
// sum: docs/historyserver-differences.md.)
func sum2(a, b func(m *model.TaskMetrics) int64) summaryMetric {
	return func(t *model.Task, _ int64) (int64, int64) {
		if !hasStoredMetrics(t) {
			return -1, -1
		}
		x, y := a(&t.Metrics), b(&t.Metrics)
		return x + y, x + y
	}
}

type summarizer struct {
	tasks     []*model.Task
	durations []int64
	positions []int64 // per quantile; -1 never occurs
	buf       []indexed
}

func (sm *summarizer) dist(f summaryMetric) []any {
	sm.buf = sm.buf[:0]
	for i, t := range sm.tasks {
		k, v := f(t, sm.durations[i])
		if k >= 0 {
			sm.buf = append(sm.buf, indexed{k, v, t.TaskID})
		}
	}
	// A typed comparison: sort.Slice's reflective swaps were a third of a
	// 2,185-task stage page's time (30 metrics sorted per summary).
	slices.SortFunc(sm.buf, func(a, b indexed) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.taskID, b.taskID)
	})
	out := make([]any, len(sm.positions))
	for i, p := range sm.positions {
		if p >= 0 && p < int64(len(sm.buf)) {
			out[i] = float64(sm.buf[p].value)
		} else {
			out[i] = "NaN" // Jackson quotes non-numeric doubles
		}
	}
	return out
}

// taskSummary is /taskSummary (TaskMetricDistributions), or nil when no
// task has a recorded run time.
func taskSummary(a *model.Attempt, s *model.StageAttempt, quantiles []float64) *Obj {
	count := int64(0)
	durations := make([]int64, len(s.Tasks))
	for i, t := range s.Tasks {
		if stored(t, t.Metrics.ExecutorRunTime) >= 0 {
			count++
		}
		durations[i] = taskDuration(a, t)
	}
	if count == 0 {
		return nil
	}
	sm := &summarizer{tasks: s.Tasks, durations: durations}
	for _, q := range quantiles {
		p := min(int64(q*float64(count)), count-1)
		if math.IsNaN(q) {
			p = -1
		}
		sm.positions = append(sm.positions, p)
	}
	m := plain
	type tm = model.TaskMetrics
	return obj().Set("quantiles", floatsAny(quantiles)).
		Set("duration", sm.dist(func(_ *model.Task, d int64) (int64, int64) { return d, d })).
		Set("executorDeserializeTime", sm.dist(m(func(m *tm) int64 { return m.ExecutorDeserializeTime }))).
		Set("executorDeserializeCpuTime", sm.dist(m(func(m *tm) int64 { return m.ExecutorDeserializeCpuTime }))).
		Set("executorRunTime", sm.dist(m(func(m *tm) int64 { return m.ExecutorRunTime }))).
		Set("executorCpuTime", sm.dist(m(func(m *tm) int64 { return m.ExecutorCpuTime }))).
		Set("resultSize", sm.dist(m(func(m *tm) int64 { return m.ResultSize }))).
		Set("jvmGcTime", sm.dist(m(func(m *tm) int64 { return m.JvmGcTime }))).
		Set("resultSerializationTime", sm.dist(m(func(m *tm) int64 { return m.ResultSerializationTime }))).
		Set("gettingResultTime", sm.dist(func(t *model.Task, d int64) (int64, int64) {
			if !t.HasMetrics {
				return -1, -1
			}
			v := gettingResultTime(t, d, 0)
			return v, v
		})).
		Set("schedulerDelay", sm.dist(func(t *model.Task, d int64) (int64, int64) {
			if !t.HasMetrics {
				return -1, -1
			}
			v := max(0, d-t.Metrics.ExecutorRunTime-t.Metrics.ExecutorDeserializeTime-
				t.Metrics.ResultSerializationTime-gettingResultTime(t, d, 0))
			return v, v
		})).
		Set("peakExecutionMemory", sm.dist(m(func(m *tm) int64 { return m.PeakExecutionMemory }))).
		Set("memoryBytesSpilled", sm.dist(m(func(m *tm) int64 { return m.MemoryBytesSpilled }))).
		Set("diskBytesSpilled", sm.dist(m(func(m *tm) int64 { return m.DiskBytesSpilled }))).
		Set("inputMetrics", obj().
			Set("bytesRead", sm.dist(m(func(m *tm) int64 { return m.InputBytesRead }))).
			Set("recordsRead", sm.dist(m(func(m *tm) int64 { return m.InputRecordsRead })))).
		Set("outputMetrics", obj().
			Set("bytesWritten", sm.dist(m(func(m *tm) int64 { return m.OutputBytesWritten }))).
			Set("recordsWritten", sm.dist(m(func(m *tm) int64 { return m.OutputRecordsWritten })))).
		Set("shuffleReadMetrics", obj().
			Set("readBytes", sm.dist(sum2(func(m *tm) int64 { return m.ShuffleRead.LocalBytesRead },
				func(m *tm) int64 { return m.ShuffleRead.RemoteBytesRead }))).
			Set("readRecords", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RecordsRead }))).
			Set("remoteBlocksFetched", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteBlocksFetched }))).
			Set("localBlocksFetched", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.LocalBlocksFetched }))).
			Set("fetchWaitTime", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.FetchWaitTime }))).
			Set("remoteBytesRead", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteBytesRead }))).
			Set("remoteBytesReadToDisk", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteBytesReadToDisk }))).
			Set("totalBlocksFetched", sm.dist(sum2(func(m *tm) int64 { return m.ShuffleRead.LocalBlocksFetched },
				func(m *tm) int64 { return m.ShuffleRead.RemoteBlocksFetched }))).
			Set("remoteReqsDuration", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteReqsDuration }))).
			Set("shufflePushReadMetricsDist", obj().
				Set("corruptMergedBlockChunks", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.CorruptMergedBlockChunks }))).
				Set("mergedFetchFallbackCount", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.MergedFetchFallbackCount }))).
				Set("remoteMergedBlocksFetched", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedBlocksFetched }))).
				Set("localMergedBlocksFetched", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.LocalMergedBlocksFetched }))).
				Set("remoteMergedChunksFetched", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedChunksFetched }))).
				Set("localMergedChunksFetched", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.LocalMergedChunksFetched }))).
				Set("remoteMergedBytesRead", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedBytesRead }))).
				Set("localMergedBytesRead", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.LocalMergedBytesRead }))).
				Set("remoteMergedReqsDuration", sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedReqsDuration }))))).
		Set("shuffleWriteMetrics", obj().
			Set("writeBytes", sm.dist(m(func(m *tm) int64 { return m.ShuffleWrite.BytesWritten }))).
			Set("writeRecords", sm.dist(m(func(m *tm) int64 { return m.ShuffleWrite.RecordsWritten }))).
			Set("writeTime", sm.dist(m(func(m *tm) int64 { return m.ShuffleWrite.WriteTime }))))
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
	for i, name := range model.ExecutorMetricNames() {
		vals := make([]float64, len(withPeak))
		for j, e := range withPeak {
			vals[j] = float64(e.Peak.Values[i])
		}
		sort.Float64s(vals)
		if len(vals) == 0 {
			// No executor reported a peak (every task of the attempt was lost
			// or failed to fetch): the History Server answers zeros.
			zeros := make([]any, len(quantiles))
			for i := range zeros {
				zeros[i] = 0.0
			}
			peaks.Set(name, zeros)
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

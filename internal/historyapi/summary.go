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
func hasStoredMetrics(t *model.Task, m *model.TaskMetrics) bool {
	return t.HasMetrics && stored(t, m.ExecutorDeserializeTime) != -1
}

// indexed is a task's position key in one index and the value read there.
type indexed struct {
	key, value int64
	taskID     int64
}

// summaryMetric reads one metric of a task, its metrics (m, expanded once
// per summary: a task holds them sparse) and its duration.
type summaryMetric func(t *model.Task, m *model.TaskMetrics, duration int64) (key, value int64)

func plain(get func(m *model.TaskMetrics) int64) summaryMetric {
	return func(t *model.Task, m *model.TaskMetrics, _ int64) (int64, int64) {
		v := stored(t, get(m))
		return v, v
	}
}

// sum2 is an index over two metrics (shuffle read bytes, total blocks),
// keyed and valued by their true sum when the task has metrics, also for
// an unsuccessful task. (Spark 3.5's History Server valued it by the sum of
// the stored fields, -v-1 each for such a task; Spark 4's gives the true
// sum: docs/historyserver-differences.md.)
func sum2(a, b func(m *model.TaskMetrics) int64) summaryMetric {
	return func(t *model.Task, m *model.TaskMetrics, _ int64) (int64, int64) {
		if !hasStoredMetrics(t, m) {
			return -1, -1
		}
		x, y := a(m), b(m)
		return x + y, x + y
	}
}

type summarizer struct {
	tasks     []*model.Task
	metrics   []model.TaskMetrics
	durations []int64
	positions []int64 // per quantile; -1 never occurs
	buf       []indexed
}

func (sm *summarizer) dist(f summaryMetric) Dist {
	sm.buf = sm.buf[:0]
	for i, t := range sm.tasks {
		k, v := f(t, &sm.metrics[i], sm.durations[i])
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
	out := make(Dist, len(sm.positions))
	for i, p := range sm.positions {
		if p >= 0 && p < int64(len(sm.buf)) {
			out[i] = float64(sm.buf[p].value)
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}

// Dist is one metric's values at the quantiles asked for; NaN where the
// History Server has none.
type Dist []float64

// any is the distribution as the API writes it.
func (d Dist) any() []any {
	out := make([]any, len(d))
	for i, v := range d {
		if math.IsNaN(v) {
			out[i] = "NaN" // Jackson quotes non-numeric doubles
		} else {
			out[i] = v
		}
	}
	return out
}

// Complete says whether every quantile has a value.
func (d Dist) Complete() bool {
	for _, v := range d {
		if math.IsNaN(v) {
			return false
		}
	}
	return true
}

// TaskMetricDistributions is /taskSummary as the History Server's
// TaskMetricDistributions has it: the typed value the REST answer is
// written from (obj) and serve's stage page reads.
type TaskMetricDistributions struct {
	Quantiles                                                     []float64
	Duration, ExecutorDeserializeTime, ExecutorDeserializeCpuTime Dist
	ExecutorRunTime, ExecutorCpuTime, ResultSize, JvmGcTime       Dist
	ResultSerializationTime, GettingResultTime, SchedulerDelay    Dist
	PeakExecutionMemory, MemoryBytesSpilled, DiskBytesSpilled     Dist
	InputMetrics                                                  struct{ BytesRead, RecordsRead Dist }
	OutputMetrics                                                 struct{ BytesWritten, RecordsWritten Dist }
	ShuffleReadMetrics                                            struct {
		ReadBytes, ReadRecords, RemoteBlocksFetched, LocalBlocksFetched, FetchWaitTime Dist
		RemoteBytesRead, RemoteBytesReadToDisk, TotalBlocksFetched, RemoteReqsDuration Dist
		Push                                                                           struct {
			CorruptMergedBlockChunks, MergedFetchFallbackCount, RemoteMergedBlocksFetched Dist
			LocalMergedBlocksFetched, RemoteMergedChunksFetched, LocalMergedChunksFetched Dist
			RemoteMergedBytesRead, LocalMergedBytesRead, RemoteMergedReqsDuration         Dist
		}
	}
	ShuffleWriteMetrics struct{ WriteBytes, WriteRecords, WriteTime Dist }
}

// TaskSummary is /taskSummary (TaskMetricDistributions), or nil when no
// task has a recorded run time.
func TaskSummary(a *model.Attempt, s *model.StageAttempt, quantiles []float64) *TaskMetricDistributions {
	count := int64(0)
	durations := make([]int64, len(s.Tasks))
	metrics := make([]model.TaskMetrics, len(s.Tasks))
	for i, t := range s.Tasks {
		metrics[i] = t.Metrics()
		if stored(t, metrics[i].ExecutorRunTime) >= 0 {
			count++
		}
		durations[i] = taskDuration(a, t)
	}
	if count == 0 {
		return nil
	}
	sm := &summarizer{tasks: s.Tasks, metrics: metrics, durations: durations}
	for _, q := range quantiles {
		p := min(int64(q*float64(count)), count-1)
		if math.IsNaN(q) {
			p = -1
		}
		sm.positions = append(sm.positions, p)
	}
	m := plain
	type tm = model.TaskMetrics
	d := &TaskMetricDistributions{Quantiles: quantiles}
	d.Duration = sm.dist(func(_ *model.Task, _ *tm, d int64) (int64, int64) { return d, d })
	d.ExecutorDeserializeTime = sm.dist(m(func(m *tm) int64 { return m.ExecutorDeserializeTime }))
	d.ExecutorDeserializeCpuTime = sm.dist(m(func(m *tm) int64 { return m.ExecutorDeserializeCpuTime }))
	d.ExecutorRunTime = sm.dist(m(func(m *tm) int64 { return m.ExecutorRunTime }))
	d.ExecutorCpuTime = sm.dist(m(func(m *tm) int64 { return m.ExecutorCpuTime }))
	d.ResultSize = sm.dist(m(func(m *tm) int64 { return m.ResultSize }))
	d.JvmGcTime = sm.dist(m(func(m *tm) int64 { return m.JvmGcTime }))
	d.ResultSerializationTime = sm.dist(m(func(m *tm) int64 { return m.ResultSerializationTime }))
	d.GettingResultTime = sm.dist(func(t *model.Task, _ *tm, d int64) (int64, int64) {
		if !t.HasMetrics {
			return -1, -1
		}
		v := gettingResultTime(t, d, 0)
		return v, v
	})
	d.SchedulerDelay = sm.dist(func(t *model.Task, m *tm, d int64) (int64, int64) {
		if !t.HasMetrics {
			return -1, -1
		}
		v := max(0, d-m.ExecutorRunTime-m.ExecutorDeserializeTime-
			m.ResultSerializationTime-gettingResultTime(t, d, 0))
		return v, v
	})
	d.PeakExecutionMemory = sm.dist(m(func(m *tm) int64 { return m.PeakExecutionMemory }))
	d.MemoryBytesSpilled = sm.dist(m(func(m *tm) int64 { return m.MemoryBytesSpilled }))
	d.DiskBytesSpilled = sm.dist(m(func(m *tm) int64 { return m.DiskBytesSpilled }))
	d.InputMetrics.BytesRead = sm.dist(m(func(m *tm) int64 { return m.InputBytesRead }))
	d.InputMetrics.RecordsRead = sm.dist(m(func(m *tm) int64 { return m.InputRecordsRead }))
	d.OutputMetrics.BytesWritten = sm.dist(m(func(m *tm) int64 { return m.OutputBytesWritten }))
	d.OutputMetrics.RecordsWritten = sm.dist(m(func(m *tm) int64 { return m.OutputRecordsWritten }))
	sr := &d.ShuffleReadMetrics
	sr.ReadBytes = sm.dist(sum2(func(m *tm) int64 { return m.ShuffleRead.LocalBytesRead },
		func(m *tm) int64 { return m.ShuffleRead.RemoteBytesRead }))
	sr.ReadRecords = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RecordsRead }))
	sr.RemoteBlocksFetched = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteBlocksFetched }))
	sr.LocalBlocksFetched = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.LocalBlocksFetched }))
	sr.FetchWaitTime = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.FetchWaitTime }))
	sr.RemoteBytesRead = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteBytesRead }))
	sr.RemoteBytesReadToDisk = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteBytesReadToDisk }))
	sr.TotalBlocksFetched = sm.dist(sum2(func(m *tm) int64 { return m.ShuffleRead.LocalBlocksFetched },
		func(m *tm) int64 { return m.ShuffleRead.RemoteBlocksFetched }))
	sr.RemoteReqsDuration = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.RemoteReqsDuration }))
	p := &sr.Push
	p.CorruptMergedBlockChunks = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.CorruptMergedBlockChunks }))
	p.MergedFetchFallbackCount = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.MergedFetchFallbackCount }))
	p.RemoteMergedBlocksFetched = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedBlocksFetched }))
	p.LocalMergedBlocksFetched = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.LocalMergedBlocksFetched }))
	p.RemoteMergedChunksFetched = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedChunksFetched }))
	p.LocalMergedChunksFetched = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.LocalMergedChunksFetched }))
	p.RemoteMergedBytesRead = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedBytesRead }))
	p.LocalMergedBytesRead = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.LocalMergedBytesRead }))
	p.RemoteMergedReqsDuration = sm.dist(m(func(m *tm) int64 { return m.ShuffleRead.Push.RemoteMergedReqsDuration }))
	sw := &d.ShuffleWriteMetrics
	sw.WriteBytes = sm.dist(m(func(m *tm) int64 { return m.ShuffleWrite.BytesWritten }))
	sw.WriteRecords = sm.dist(m(func(m *tm) int64 { return m.ShuffleWrite.RecordsWritten }))
	sw.WriteTime = sm.dist(m(func(m *tm) int64 { return m.ShuffleWrite.WriteTime }))
	return d
}

// obj writes the distributions as Spark's TaskMetricDistributions.
func (d *TaskMetricDistributions) obj() *Obj {
	sr, p, sw := &d.ShuffleReadMetrics, &d.ShuffleReadMetrics.Push, &d.ShuffleWriteMetrics
	return obj().Set("quantiles", floatsAny(d.Quantiles)).
		Set("duration", d.Duration.any()).
		Set("executorDeserializeTime", d.ExecutorDeserializeTime.any()).
		Set("executorDeserializeCpuTime", d.ExecutorDeserializeCpuTime.any()).
		Set("executorRunTime", d.ExecutorRunTime.any()).
		Set("executorCpuTime", d.ExecutorCpuTime.any()).
		Set("resultSize", d.ResultSize.any()).
		Set("jvmGcTime", d.JvmGcTime.any()).
		Set("resultSerializationTime", d.ResultSerializationTime.any()).
		Set("gettingResultTime", d.GettingResultTime.any()).
		Set("schedulerDelay", d.SchedulerDelay.any()).
		Set("peakExecutionMemory", d.PeakExecutionMemory.any()).
		Set("memoryBytesSpilled", d.MemoryBytesSpilled.any()).
		Set("diskBytesSpilled", d.DiskBytesSpilled.any()).
		Set("inputMetrics", obj().
			Set("bytesRead", d.InputMetrics.BytesRead.any()).
			Set("recordsRead", d.InputMetrics.RecordsRead.any())).
		Set("outputMetrics", obj().
			Set("bytesWritten", d.OutputMetrics.BytesWritten.any()).
			Set("recordsWritten", d.OutputMetrics.RecordsWritten.any())).
		Set("shuffleReadMetrics", obj().
			Set("readBytes", sr.ReadBytes.any()).
			Set("readRecords", sr.ReadRecords.any()).
			Set("remoteBlocksFetched", sr.RemoteBlocksFetched.any()).
			Set("localBlocksFetched", sr.LocalBlocksFetched.any()).
			Set("fetchWaitTime", sr.FetchWaitTime.any()).
			Set("remoteBytesRead", sr.RemoteBytesRead.any()).
			Set("remoteBytesReadToDisk", sr.RemoteBytesReadToDisk.any()).
			Set("totalBlocksFetched", sr.TotalBlocksFetched.any()).
			Set("remoteReqsDuration", sr.RemoteReqsDuration.any()).
			Set("shufflePushReadMetricsDist", obj().
				Set("corruptMergedBlockChunks", p.CorruptMergedBlockChunks.any()).
				Set("mergedFetchFallbackCount", p.MergedFetchFallbackCount.any()).
				Set("remoteMergedBlocksFetched", p.RemoteMergedBlocksFetched.any()).
				Set("localMergedBlocksFetched", p.LocalMergedBlocksFetched.any()).
				Set("remoteMergedChunksFetched", p.RemoteMergedChunksFetched.any()).
				Set("localMergedChunksFetched", p.LocalMergedChunksFetched.any()).
				Set("remoteMergedBytesRead", p.RemoteMergedBytesRead.any()).
				Set("localMergedBytesRead", p.LocalMergedBytesRead.any()).
				Set("remoteMergedReqsDuration", p.RemoteMergedReqsDuration.any()))).
		Set("shuffleWriteMetrics", obj().
			Set("writeBytes", sw.WriteBytes.any()).
			Set("writeRecords", sw.WriteRecords.any()).
			Set("writeTime", sw.WriteTime.any()))
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

package historyapi

import (
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
)

func (api *API) nowMs() int64 {
	if api.Now != nil {
		return api.Now()
	}
	return time.Now().UnixMilli()
}

// taskDuration is the duration the History Server stores for a task: its
// run time when finished, else the time until the log's last update.
func taskDuration(a *model.Attempt, t *model.Task) int64 {
	if t.FinishTime != 0 {
		return t.FinishTime - t.LaunchTime
	}
	if a.LastUpdated > t.LaunchTime {
		return a.LastUpdated - t.LaunchTime
	}
	return 0
}

// gettingResultTime follows AppStatusUtils.gettingResultTime; now is the
// current time for a task still fetching its result.
func gettingResultTime(t *model.Task, duration, now int64) int64 {
	if t.GettingResultTime <= 0 {
		return 0
	}
	if duration > 0 {
		return t.LaunchTime + duration - t.GettingResultTime
	}
	return max(0, now-t.GettingResultTime)
}

// schedulerDelay follows AppStatusUtils.schedulerDelay for a task shown in
// the API: zero until the task finished with metrics.
func schedulerDelay(t *model.Task, duration int64) int64 {
	if t.FinishTime == 0 || !t.HasMetrics || duration <= 0 {
		return 0
	}
	m := &t.Metrics
	return max(0, duration-m.ExecutorRunTime-m.ExecutorDeserializeTime-m.ResultSerializationTime-
		gettingResultTime(t, duration, 0))
}

func (api *API) taskData(a *model.Attempt, t *model.Task) *Obj {
	d := taskDuration(a, t)
	o := obj().Set("taskId", t.TaskID).Set("index", t.Index).Set("attempt", t.Attempt).
		Set("partitionId", t.PartitionID).Set("launchTime", date(t.LaunchTime))
	if t.GettingResultTime > 0 {
		o.Set("resultFetchStart", date(t.GettingResultTime))
	}
	if d > 0 {
		o.Set("duration", d)
	}
	o.Set("executorId", t.ExecutorID).Set("host", t.Host).Set("status", t.Status()).
		Set("taskLocality", t.Locality).Set("speculative", t.Speculative).
		Set("accumulatorUpdates", accumulables(t.Accumulables, true))
	if t.HasErrorMessage {
		o.Set("errorMessage", t.ErrorMessage)
	}
	if t.HasMetrics {
		o.Set("taskMetrics", taskMetrics(&t.Metrics))
	}
	var logs [][2]string
	if e := a.Executor(t.ExecutorID); e != nil {
		logs = e.Logs
	}
	o.Set("executorLogs", pairsObj(logs)).Set("schedulerDelay", schedulerDelay(t, d)).
		Set("gettingResultTime", gettingResultTime(t, d, api.nowMs()))
	return o
}

func taskMetrics(m *model.TaskMetrics) *Obj {
	r, p := &m.ShuffleRead, &m.ShuffleRead.Push
	return obj().Set("executorDeserializeTime", m.ExecutorDeserializeTime).
		Set("executorDeserializeCpuTime", m.ExecutorDeserializeCpuTime).
		Set("executorRunTime", m.ExecutorRunTime).Set("executorCpuTime", m.ExecutorCpuTime).
		Set("resultSize", m.ResultSize).Set("jvmGcTime", m.JvmGcTime).
		Set("resultSerializationTime", m.ResultSerializationTime).
		Set("memoryBytesSpilled", m.MemoryBytesSpilled).Set("diskBytesSpilled", m.DiskBytesSpilled).
		Set("peakExecutionMemory", m.PeakExecutionMemory).
		Set("inputMetrics", obj().Set("bytesRead", m.InputBytesRead).Set("recordsRead", m.InputRecordsRead)).
		Set("outputMetrics", obj().Set("bytesWritten", m.OutputBytesWritten).Set("recordsWritten", m.OutputRecordsWritten)).
		Set("shuffleReadMetrics", obj().Set("remoteBlocksFetched", r.RemoteBlocksFetched).
			Set("localBlocksFetched", r.LocalBlocksFetched).Set("fetchWaitTime", r.FetchWaitTime).
			Set("remoteBytesRead", r.RemoteBytesRead).Set("remoteBytesReadToDisk", r.RemoteBytesReadToDisk).
			Set("localBytesRead", r.LocalBytesRead).Set("recordsRead", r.RecordsRead).
			Set("remoteReqsDuration", r.RemoteReqsDuration).
			Set("shufflePushReadMetrics", obj().Set("corruptMergedBlockChunks", p.CorruptMergedBlockChunks).
				Set("mergedFetchFallbackCount", p.MergedFetchFallbackCount).
				Set("remoteMergedBlocksFetched", p.RemoteMergedBlocksFetched).
				Set("localMergedBlocksFetched", p.LocalMergedBlocksFetched).
				Set("remoteMergedChunksFetched", p.RemoteMergedChunksFetched).
				Set("localMergedChunksFetched", p.LocalMergedChunksFetched).
				Set("remoteMergedBytesRead", p.RemoteMergedBytesRead).
				Set("localMergedBytesRead", p.LocalMergedBytesRead).
				Set("remoteMergedReqsDuration", p.RemoteMergedReqsDuration))).
		Set("shuffleWriteMetrics", obj().Set("bytesWritten", m.ShuffleWrite.BytesWritten).
			Set("writeTime", m.ShuffleWrite.WriteTime).Set("recordsWritten", m.ShuffleWrite.RecordsWritten))
}

// runTimeKey is the value Spark indexes tasks by for runtime sorting: the
// run time, stored negated (-x-1) for unsuccessful tasks and -1 without metrics.
func runTimeKey(t *model.Task) int64 {
	if !t.HasMetrics {
		return -1
	}
	if !t.Successful() {
		return -t.Metrics.ExecutorRunTime - 1
	}
	return t.Metrics.ExecutorRunTime
}

func (api *API) taskList(a *model.Attempt, s *model.StageAttempt, q url.Values) (any, error) {
	offset, err := intParam(q, "offset", 0)
	if err != nil {
		return nil, err
	}
	length, err := intParam(q, "length", 20)
	if err != nil {
		return nil, err
	}
	statuses, err := taskStatuses(q["status"])
	if err != nil {
		return nil, err
	}
	tasks := append([]*model.Task(nil), s.Tasks...)
	// TaskSorting.fromString: the short names, else the enum name in any case.
	switch sortBy := strings.ToLower(q.Get("sortBy")); sortBy {
	case "", "id":
	case "increasing_runtime", "runtime", "decreasing_runtime", "-runtime":
		desc := sortBy == "decreasing_runtime" || sortBy == "-runtime"
		sort.SliceStable(tasks, func(i, j int) bool {
			ki, kj := runTimeKey(tasks[i]), runTimeKey(tasks[j])
			if ki != kj {
				return (ki < kj) != desc
			}
			return (tasks[i].TaskID < tasks[j].TaskID) != desc
		})
	default:
		return nil, notFound("unknown sortBy: %s", sortBy)
	}
	out := []any{}
	skipped := 0
	for _, t := range tasks {
		if len(out) >= length {
			break
		}
		if len(statuses) > 0 && !statuses[t.Status()] {
			continue
		}
		if skipped < offset {
			skipped++
			continue
		}
		out = append(out, api.taskData(a, t))
	}
	return out, nil
}

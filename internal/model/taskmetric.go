package model

import "math/bits"

// TaskMetric names one of a task's 36 metrics, in TaskMetrics.fields'
// order (the bit of the sparse store's mask that says it is set).
type TaskMetric uint8

// The task metrics, in TaskMetrics.fields' order.
const (
	TMExecutorDeserializeTime TaskMetric = iota
	TMExecutorDeserializeCpuTime
	TMExecutorRunTime
	TMExecutorCpuTime
	TMResultSize
	TMJvmGcTime
	TMResultSerializationTime
	TMMemoryBytesSpilled
	TMDiskBytesSpilled
	TMPeakExecutionMemory
	TMPeakOnHeapExecutionMemory
	TMPeakOffHeapExecutionMemory
	TMInputBytesRead
	TMInputRecordsRead
	TMOutputBytesWritten
	TMOutputRecordsWritten
	TMShuffleRemoteBlocksFetched
	TMShuffleLocalBlocksFetched
	TMShuffleFetchWaitTime
	TMShuffleRemoteBytesRead
	TMShuffleRemoteBytesReadToDisk
	TMShuffleLocalBytesRead
	TMShuffleRecordsRead
	TMShuffleRemoteReqsDuration
	TMPushCorruptMergedBlockChunks
	TMPushMergedFetchFallbackCount
	TMPushRemoteMergedBlocksFetched
	TMPushLocalMergedBlocksFetched
	TMPushRemoteMergedChunksFetched
	TMPushLocalMergedChunksFetched
	TMPushRemoteMergedBytesRead
	TMPushLocalMergedBytesRead
	TMPushRemoteMergedReqsDuration
	TMShuffleBytesWritten
	TMShuffleWriteTime
	TMShuffleRecordsWritten
)

// Metric is one of the task's metrics (0 when !HasMetrics), read from the
// sparse store without expanding the others: a statistic that reads two
// or three metrics of every task pays for those, not for all 36 (Metrics).
func (t *Task) Metric(f TaskMetric) int64 { return t.metrics.get(f) }

// ShuffleReadBytes is the task's local plus remote shuffle bytes read
// (TaskMetrics.ShuffleReadBytes).
func (t *Task) ShuffleReadBytes() int64 {
	return t.metrics.get(TMShuffleLocalBytesRead) + t.metrics.get(TMShuffleRemoteBytesRead)
}

// get is the value of metric f: the mask's bit f says whether it is
// stored, the bits below it where.
func (s sparseMetrics) get(f TaskMetric) int64 {
	if len(s.vals) == 0 || f >= numTaskMetrics {
		return 0
	}
	mask, bit := uint64(s.vals[0]), uint64(1)<<f
	if mask&bit == 0 {
		return 0
	}
	return s.vals[1+bits.OnesCount64(mask&(bit-1))]
}

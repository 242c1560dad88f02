package model

import "math"

// TaskMetrics holds every field of Spark's TaskMetrics (as the event log
// carries them in "Task Metrics"), including push-based shuffle fields.
type TaskMetrics struct {
	ExecutorDeserializeTime    int64
	ExecutorDeserializeCpuTime int64
	ExecutorRunTime            int64
	ExecutorCpuTime            int64
	ResultSize                 int64
	JvmGcTime                  int64
	ResultSerializationTime    int64
	MemoryBytesSpilled         int64
	DiskBytesSpilled           int64
	PeakExecutionMemory        int64
	PeakOnHeapExecutionMemory  int64
	PeakOffHeapExecutionMemory int64

	InputBytesRead       int64
	InputRecordsRead     int64
	OutputBytesWritten   int64
	OutputRecordsWritten int64

	ShuffleRead  ShuffleReadMetrics
	ShuffleWrite ShuffleWriteMetrics
}

// ShuffleReadMetrics are a task's "Shuffle Read Metrics".
type ShuffleReadMetrics struct {
	RemoteBlocksFetched   int64
	LocalBlocksFetched    int64
	FetchWaitTime         int64
	RemoteBytesRead       int64
	RemoteBytesReadToDisk int64
	LocalBytesRead        int64
	RecordsRead           int64
	RemoteReqsDuration    int64
	Push                  ShufflePushReadMetrics
}

// ShufflePushReadMetrics are the push-based shuffle read fields (Spark 3.2+).
type ShufflePushReadMetrics struct {
	CorruptMergedBlockChunks  int64
	MergedFetchFallbackCount  int64
	RemoteMergedBlocksFetched int64
	LocalMergedBlocksFetched  int64
	RemoteMergedChunksFetched int64
	LocalMergedChunksFetched  int64
	RemoteMergedBytesRead     int64
	LocalMergedBytesRead      int64
	RemoteMergedReqsDuration  int64
}

// ShuffleWriteMetrics are a task's "Shuffle Write Metrics".
type ShuffleWriteMetrics struct {
	BytesWritten   int64
	WriteTime      int64
	RecordsWritten int64
}

// Add adds o into m (sign +1) or subtracts it (sign -1), saturating at
// the int64 bounds (SatAdd); sat counts the fields it held there.
func (m *TaskMetrics) Add(o *TaskMetrics, sign int64) (sat int) {
	sat += acc(&m.ExecutorDeserializeTime, o.ExecutorDeserializeTime, sign)
	sat += acc(&m.ExecutorDeserializeCpuTime, o.ExecutorDeserializeCpuTime, sign)
	sat += acc(&m.ExecutorRunTime, o.ExecutorRunTime, sign)
	sat += acc(&m.ExecutorCpuTime, o.ExecutorCpuTime, sign)
	sat += acc(&m.ResultSize, o.ResultSize, sign)
	sat += acc(&m.JvmGcTime, o.JvmGcTime, sign)
	sat += acc(&m.ResultSerializationTime, o.ResultSerializationTime, sign)
	sat += acc(&m.MemoryBytesSpilled, o.MemoryBytesSpilled, sign)
	sat += acc(&m.DiskBytesSpilled, o.DiskBytesSpilled, sign)
	sat += acc(&m.PeakExecutionMemory, o.PeakExecutionMemory, sign)
	sat += acc(&m.PeakOnHeapExecutionMemory, o.PeakOnHeapExecutionMemory, sign)
	sat += acc(&m.PeakOffHeapExecutionMemory, o.PeakOffHeapExecutionMemory, sign)
	sat += acc(&m.InputBytesRead, o.InputBytesRead, sign)
	sat += acc(&m.InputRecordsRead, o.InputRecordsRead, sign)
	sat += acc(&m.OutputBytesWritten, o.OutputBytesWritten, sign)
	sat += acc(&m.OutputRecordsWritten, o.OutputRecordsWritten, sign)
	r, or := &m.ShuffleRead, &o.ShuffleRead
	sat += acc(&r.RemoteBlocksFetched, or.RemoteBlocksFetched, sign)
	sat += acc(&r.LocalBlocksFetched, or.LocalBlocksFetched, sign)
	sat += acc(&r.FetchWaitTime, or.FetchWaitTime, sign)
	sat += acc(&r.RemoteBytesRead, or.RemoteBytesRead, sign)
	sat += acc(&r.RemoteBytesReadToDisk, or.RemoteBytesReadToDisk, sign)
	sat += acc(&r.LocalBytesRead, or.LocalBytesRead, sign)
	sat += acc(&r.RecordsRead, or.RecordsRead, sign)
	sat += acc(&r.RemoteReqsDuration, or.RemoteReqsDuration, sign)
	p, op := &r.Push, &or.Push
	sat += acc(&p.CorruptMergedBlockChunks, op.CorruptMergedBlockChunks, sign)
	sat += acc(&p.MergedFetchFallbackCount, op.MergedFetchFallbackCount, sign)
	sat += acc(&p.RemoteMergedBlocksFetched, op.RemoteMergedBlocksFetched, sign)
	sat += acc(&p.LocalMergedBlocksFetched, op.LocalMergedBlocksFetched, sign)
	sat += acc(&p.RemoteMergedChunksFetched, op.RemoteMergedChunksFetched, sign)
	sat += acc(&p.LocalMergedChunksFetched, op.LocalMergedChunksFetched, sign)
	sat += acc(&p.RemoteMergedBytesRead, op.RemoteMergedBytesRead, sign)
	sat += acc(&p.LocalMergedBytesRead, op.LocalMergedBytesRead, sign)
	sat += acc(&p.RemoteMergedReqsDuration, op.RemoteMergedReqsDuration, sign)
	w, ow := &m.ShuffleWrite, &o.ShuffleWrite
	sat += acc(&w.BytesWritten, ow.BytesWritten, sign)
	sat += acc(&w.WriteTime, ow.WriteTime, sign)
	sat += acc(&w.RecordsWritten, ow.RecordsWritten, sign)
	return sat
}

// acc adds sign×v to *d, saturating; 1 when it saturated.
func acc(d *int64, v, sign int64) int {
	if sign < 0 {
		if v == math.MinInt64 {
			v = math.MaxInt64
		} else {
			v = -v
		}
	}
	s := SatAdd(*d, v)
	*d = s
	if s == math.MaxInt64 || s == math.MinInt64 {
		return 1
	}
	return 0
}

// ShuffleReadBytes is local plus remote shuffle bytes read.
func (m *TaskMetrics) ShuffleReadBytes() int64 {
	return m.ShuffleRead.LocalBytesRead + m.ShuffleRead.RemoteBytesRead
}

// ExecutorMetricNames returns Spark's ExecutorMetricType names in their
// fixed order (a copy: the table itself never changes).
func ExecutorMetricNames() [NumExecutorMetrics]string { return executorMetricNames }

var executorMetricNames = [NumExecutorMetrics]string{
	"JVMHeapMemory", "JVMOffHeapMemory", "OnHeapExecutionMemory", "OffHeapExecutionMemory",
	"OnHeapStorageMemory", "OffHeapStorageMemory", "OnHeapUnifiedMemory", "OffHeapUnifiedMemory",
	"DirectPoolMemory", "MappedPoolMemory",
	"ProcessTreeJVMVMemory", "ProcessTreeJVMRSSMemory", "ProcessTreePythonVMemory",
	"ProcessTreePythonRSSMemory", "ProcessTreeOtherVMemory", "ProcessTreeOtherRSSMemory",
	"MinorGCCount", "MinorGCTime", "MajorGCCount", "MajorGCTime", "TotalGCTime",
	"ConcurrentGCCount", "ConcurrentGCTime",
}

// NumExecutorMetrics is the number of executor metrics Spark defines.
const NumExecutorMetrics = 23

// Indexes of the executor metrics sparkdx reads directly.
const (
	MetricJVMHeapMemory              = 0
	MetricJVMOffHeapMemory           = 1
	MetricProcessTreeJVMRSSMemory    = 11
	MetricProcessTreePythonRSSMemory = 13
	MetricTotalGCTime                = 20
)

// ExecutorMetricIndex returns the index of a metric name, or -1.
func ExecutorMetricIndex(name string) int {
	switch name {
	case "JVMHeapMemory":
		return 0
	case "JVMOffHeapMemory":
		return 1
	case "OnHeapExecutionMemory":
		return 2
	case "OffHeapExecutionMemory":
		return 3
	case "OnHeapStorageMemory":
		return 4
	case "OffHeapStorageMemory":
		return 5
	case "OnHeapUnifiedMemory":
		return 6
	case "OffHeapUnifiedMemory":
		return 7
	case "DirectPoolMemory":
		return 8
	case "MappedPoolMemory":
		return 9
	case "ProcessTreeJVMVMemory":
		return 10
	case "ProcessTreeJVMRSSMemory":
		return 11
	case "ProcessTreePythonVMemory":
		return 12
	case "ProcessTreePythonRSSMemory":
		return 13
	case "ProcessTreeOtherVMemory":
		return 14
	case "ProcessTreeOtherRSSMemory":
		return 15
	case "MinorGCCount":
		return 16
	case "MinorGCTime":
		return 17
	case "MajorGCCount":
		return 18
	case "MajorGCTime":
		return 19
	case "TotalGCTime":
		return 20
	case "ConcurrentGCCount":
		return 21
	case "ConcurrentGCTime":
		return 22
	}
	return -1
}

// ExecutorMetrics is a set of executor metric values (peaks when used as
// peaks). Set is false until any value was recorded, like Spark's isSet.
type ExecutorMetrics struct {
	Values [NumExecutorMetrics]int64
	Set    bool
}

// IsZero tells whether every value is zero.
func (m *ExecutorMetrics) IsZero() bool {
	for _, v := range m.Values {
		if v != 0 {
			return false
		}
	}
	return true
}

// UpdatePeaks raises each value to o's where o's is larger, as Spark's
// compareAndUpdatePeakValues does. As in Spark, unset peaks hold -1 for
// JVMHeapMemory and the peaks are set once it is above -1: an update of all
// zeros sets them, one whose JVMHeapMemory is -1 (a task lost with its
// executor) does not.
func (m *ExecutorMetrics) UpdatePeaks(o *ExecutorMetrics) {
	if !o.Set {
		return
	}
	if !m.Set {
		m.Values[0] = -1
	}
	for i, v := range o.Values {
		if v > m.Values[i] {
			m.Values[i] = v
		}
	}
	m.Set = m.Values[0] > -1
	if !m.Set {
		m.Values[0] = 0
	}
}

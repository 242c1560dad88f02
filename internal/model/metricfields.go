package model

// MetricGroup is one object Spark nests task metrics in: "Task Metrics"
// itself, and within it "Input Metrics", "Output Metrics", "Shuffle Read
// Metrics" (holding "Push Based Shuffle") and "Shuffle Write Metrics".
// Both event-log decoders, TaskMetrics.Add and the History Server API read
// the metrics through these tables, so each metric is named once.
type MetricGroup struct {
	Log    string // key in the event log ("" for "Task Metrics" itself)
	API    string // key in the REST API's task metrics ("" at the top)
	Fields []MetricField
	Groups []*MetricGroup // nested groups, in the REST API's order
}

// MetricField is one task metric.
type MetricField struct {
	Log   string // key in the event log
	API   string // key in the REST API's task metrics, within its group
	Stage string // key in the REST API's stage totals ("" where a stage does not show it)
	Of    func(*TaskMetrics) *int64
}

// Field returns the field of g whose event-log key is key, or nil. Spark
// writes the keys in the table's order, so *hint (where the previous key
// was found, 0 to start) makes the lookup one comparison.
func (g *MetricGroup) Field(key []byte, hint *int) *MetricField {
	j := *hint
	for range g.Fields {
		if j >= len(g.Fields) {
			j = 0
		}
		if f := &g.Fields[j]; string(key) == f.Log {
			*hint = j + 1
			return f
		}
		j++
	}
	return nil
}

// Group returns the nested group of g whose event-log key is key, or nil.
func (g *MetricGroup) Group(key []byte) *MetricGroup {
	for _, sub := range g.Groups {
		if string(key) == sub.Log {
			return sub
		}
	}
	return nil
}

// Each calls f on every field of g and its nested groups, depth first.
func (g *MetricGroup) Each(f func(*MetricField)) {
	for i := range g.Fields {
		f(&g.Fields[i])
	}
	for _, sub := range g.Groups {
		sub.Each(f)
	}
}

// TaskMetricFields is Spark's TaskMetrics as JsonProtocol writes it and
// the REST API (TaskMetrics, StageData) shows it. The table is built per
// call: callers keep the one they use.
func TaskMetricFields() *MetricGroup {
	push := &MetricGroup{Log: "Push Based Shuffle", API: "shufflePushReadMetrics", Fields: []MetricField{
		{"Corrupt Merged Block Chunks", "corruptMergedBlockChunks", "shuffleCorruptMergedBlockChunks", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.CorruptMergedBlockChunks }},
		{"Merged Fetch Fallback Count", "mergedFetchFallbackCount", "shuffleMergedFetchFallbackCount", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.MergedFetchFallbackCount }},
		{"Merged Remote Blocks Fetched", "remoteMergedBlocksFetched", "shuffleMergedRemoteBlocksFetched", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.RemoteMergedBlocksFetched }},
		{"Merged Local Blocks Fetched", "localMergedBlocksFetched", "shuffleMergedLocalBlocksFetched", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.LocalMergedBlocksFetched }},
		{"Merged Remote Chunks Fetched", "remoteMergedChunksFetched", "shuffleMergedRemoteChunksFetched", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.RemoteMergedChunksFetched }},
		{"Merged Local Chunks Fetched", "localMergedChunksFetched", "shuffleMergedLocalChunksFetched", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.LocalMergedChunksFetched }},
		{"Merged Remote Bytes Read", "remoteMergedBytesRead", "shuffleMergedRemoteBytesRead", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.RemoteMergedBytesRead }},
		{"Merged Local Bytes Read", "localMergedBytesRead", "shuffleMergedLocalBytesRead", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.LocalMergedBytesRead }},
		{"Merged Remote Requests Duration", "remoteMergedReqsDuration", "shuffleMergedRemoteReqsDuration", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.Push.RemoteMergedReqsDuration }},
	}}
	return &MetricGroup{Fields: []MetricField{
		{"Executor Deserialize Time", "executorDeserializeTime", "executorDeserializeTime", func(m *TaskMetrics) *int64 { return &m.ExecutorDeserializeTime }},
		{"Executor Deserialize CPU Time", "executorDeserializeCpuTime", "executorDeserializeCpuTime", func(m *TaskMetrics) *int64 { return &m.ExecutorDeserializeCpuTime }},
		{"Executor Run Time", "executorRunTime", "executorRunTime", func(m *TaskMetrics) *int64 { return &m.ExecutorRunTime }},
		{"Executor CPU Time", "executorCpuTime", "executorCpuTime", func(m *TaskMetrics) *int64 { return &m.ExecutorCpuTime }},
		{"Peak Execution Memory", "peakExecutionMemory", "peakExecutionMemory", func(m *TaskMetrics) *int64 { return &m.PeakExecutionMemory }},
		{"Peak On Heap Execution Memory", "", "", func(m *TaskMetrics) *int64 { return &m.PeakOnHeapExecutionMemory }},
		{"Peak Off Heap Execution Memory", "", "", func(m *TaskMetrics) *int64 { return &m.PeakOffHeapExecutionMemory }},
		{"Result Size", "resultSize", "resultSize", func(m *TaskMetrics) *int64 { return &m.ResultSize }},
		{"JVM GC Time", "jvmGcTime", "jvmGcTime", func(m *TaskMetrics) *int64 { return &m.JvmGcTime }},
		{"Result Serialization Time", "resultSerializationTime", "resultSerializationTime", func(m *TaskMetrics) *int64 { return &m.ResultSerializationTime }},
		{"Memory Bytes Spilled", "memoryBytesSpilled", "memoryBytesSpilled", func(m *TaskMetrics) *int64 { return &m.MemoryBytesSpilled }},
		{"Disk Bytes Spilled", "diskBytesSpilled", "diskBytesSpilled", func(m *TaskMetrics) *int64 { return &m.DiskBytesSpilled }},
	}, Groups: []*MetricGroup{
		{Log: "Input Metrics", API: "inputMetrics", Fields: []MetricField{
			{"Bytes Read", "bytesRead", "inputBytes", func(m *TaskMetrics) *int64 { return &m.InputBytesRead }},
			{"Records Read", "recordsRead", "inputRecords", func(m *TaskMetrics) *int64 { return &m.InputRecordsRead }},
		}},
		{Log: "Output Metrics", API: "outputMetrics", Fields: []MetricField{
			{"Bytes Written", "bytesWritten", "outputBytes", func(m *TaskMetrics) *int64 { return &m.OutputBytesWritten }},
			{"Records Written", "recordsWritten", "outputRecords", func(m *TaskMetrics) *int64 { return &m.OutputRecordsWritten }},
		}},
		{Log: "Shuffle Read Metrics", API: "shuffleReadMetrics", Fields: []MetricField{
			{"Remote Blocks Fetched", "remoteBlocksFetched", "shuffleRemoteBlocksFetched", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.RemoteBlocksFetched }},
			{"Local Blocks Fetched", "localBlocksFetched", "shuffleLocalBlocksFetched", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.LocalBlocksFetched }},
			{"Fetch Wait Time", "fetchWaitTime", "shuffleFetchWaitTime", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.FetchWaitTime }},
			{"Remote Bytes Read", "remoteBytesRead", "shuffleRemoteBytesRead", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.RemoteBytesRead }},
			{"Remote Bytes Read To Disk", "remoteBytesReadToDisk", "shuffleRemoteBytesReadToDisk", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.RemoteBytesReadToDisk }},
			{"Local Bytes Read", "localBytesRead", "shuffleLocalBytesRead", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.LocalBytesRead }},
			{"Total Records Read", "recordsRead", "shuffleReadRecords", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.RecordsRead }},
			{"Remote Requests Duration", "remoteReqsDuration", "shuffleRemoteReqsDuration", func(m *TaskMetrics) *int64 { return &m.ShuffleRead.RemoteReqsDuration }},
		}, Groups: []*MetricGroup{push}},
		{Log: "Shuffle Write Metrics", API: "shuffleWriteMetrics", Fields: []MetricField{
			{"Shuffle Bytes Written", "bytesWritten", "shuffleWriteBytes", func(m *TaskMetrics) *int64 { return &m.ShuffleWrite.BytesWritten }},
			{"Shuffle Write Time", "writeTime", "shuffleWriteTime", func(m *TaskMetrics) *int64 { return &m.ShuffleWrite.WriteTime }},
			{"Shuffle Records Written", "recordsWritten", "shuffleWriteRecords", func(m *TaskMetrics) *int64 { return &m.ShuffleWrite.RecordsWritten }},
		}},
	}}
}

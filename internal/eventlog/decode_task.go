package eventlog

import (
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sparkdx/sparkdx/internal/model"
)

func (d *Decoder) taskInfo(v *fastjson.Value) TaskInfo {
	if v == nil {
		return TaskInfo{PartitionID: -1}
	}
	return TaskInfo{
		TaskID: v.GetInt64("Task ID"), Index: v.GetInt("Index"), Attempt: v.GetInt("Attempt"),
		PartitionID: int(optInt64(v, -1, "Partition ID")),
		LaunchTime:  v.GetInt64("Launch Time"), GettingResultTime: v.GetInt64("Getting Result Time"),
		FinishTime: v.GetInt64("Finish Time"),
		ExecutorID: d.str(v, "Executor ID"), Host: d.str(v, "Host"), Locality: d.str(v, "Locality"),
		Speculative: v.GetBool("Speculative"), Failed: v.GetBool("Failed"), Killed: v.GetBool("Killed"),
		Accumulables: d.accumulables(v.Get("Accumulables")),
	}
}

func (d *Decoder) taskEnd(v *fastjson.Value) Event {
	e := EventTaskEnd{StageID: v.GetInt("Stage ID"), StageAttempt: v.GetInt("Stage Attempt ID"),
		TaskType: d.str(v, "Task Type"), Reason: endReason(v.Get("Task End Reason")),
		Info: d.taskInfo(v.Get("Task Info"))}
	// Spark reads a missing "Task Executor Metrics" as all zeros, which
	// still counts as a reported peak.
	e.ExecMetrics = executorMetrics(v.Get("Task Executor Metrics"))
	e.ExecMetrics.Set = true
	if m := v.Get("Task Metrics"); m != nil && m.Type() == fastjson.TypeObject {
		e.HasMetrics = true
		taskMetrics(m, &e.Metrics)
	}
	return &e
}

func taskMetrics(v *fastjson.Value, m *model.TaskMetrics) {
	m.ExecutorDeserializeTime = v.GetInt64("Executor Deserialize Time")
	m.ExecutorDeserializeCpuTime = v.GetInt64("Executor Deserialize CPU Time")
	m.ExecutorRunTime = v.GetInt64("Executor Run Time")
	m.ExecutorCpuTime = v.GetInt64("Executor CPU Time")
	m.PeakExecutionMemory = v.GetInt64("Peak Execution Memory")
	m.PeakOnHeapExecutionMemory = v.GetInt64("Peak On Heap Execution Memory")
	m.PeakOffHeapExecutionMemory = v.GetInt64("Peak Off Heap Execution Memory")
	m.ResultSize = v.GetInt64("Result Size")
	m.JvmGcTime = v.GetInt64("JVM GC Time")
	m.ResultSerializationTime = v.GetInt64("Result Serialization Time")
	m.MemoryBytesSpilled = v.GetInt64("Memory Bytes Spilled")
	m.DiskBytesSpilled = v.GetInt64("Disk Bytes Spilled")
	if r := v.Get("Shuffle Read Metrics"); r != nil {
		s := &m.ShuffleRead
		s.RemoteBlocksFetched = r.GetInt64("Remote Blocks Fetched")
		s.LocalBlocksFetched = r.GetInt64("Local Blocks Fetched")
		s.FetchWaitTime = r.GetInt64("Fetch Wait Time")
		s.RemoteBytesRead = r.GetInt64("Remote Bytes Read")
		s.RemoteBytesReadToDisk = r.GetInt64("Remote Bytes Read To Disk")
		s.LocalBytesRead = r.GetInt64("Local Bytes Read")
		s.RecordsRead = r.GetInt64("Total Records Read")
		s.RemoteReqsDuration = r.GetInt64("Remote Requests Duration")
		if p := r.Get("Push Based Shuffle"); p != nil {
			q := &s.Push
			q.CorruptMergedBlockChunks = p.GetInt64("Corrupt Merged Block Chunks")
			q.MergedFetchFallbackCount = p.GetInt64("Merged Fetch Fallback Count")
			q.RemoteMergedBlocksFetched = p.GetInt64("Merged Remote Blocks Fetched")
			q.LocalMergedBlocksFetched = p.GetInt64("Merged Local Blocks Fetched")
			q.RemoteMergedChunksFetched = p.GetInt64("Merged Remote Chunks Fetched")
			q.LocalMergedChunksFetched = p.GetInt64("Merged Local Chunks Fetched")
			q.RemoteMergedBytesRead = p.GetInt64("Merged Remote Bytes Read")
			q.LocalMergedBytesRead = p.GetInt64("Merged Local Bytes Read")
			q.RemoteMergedReqsDuration = p.GetInt64("Merged Remote Requests Duration")
		}
	}
	if w := v.Get("Shuffle Write Metrics"); w != nil {
		m.ShuffleWrite.BytesWritten = w.GetInt64("Shuffle Bytes Written")
		m.ShuffleWrite.WriteTime = w.GetInt64("Shuffle Write Time")
		m.ShuffleWrite.RecordsWritten = w.GetInt64("Shuffle Records Written")
	}
	if in := v.Get("Input Metrics"); in != nil {
		m.InputBytesRead = in.GetInt64("Bytes Read")
		m.InputRecordsRead = in.GetInt64("Records Read")
	}
	if out := v.Get("Output Metrics"); out != nil {
		m.OutputBytesWritten = out.GetInt64("Bytes Written")
		m.OutputRecordsWritten = out.GetInt64("Records Written")
	}
}

// executorMetrics reads an executor-metrics object; absent metrics are 0.
func executorMetrics(v *fastjson.Value) model.ExecutorMetrics {
	var m model.ExecutorMetrics
	if v == nil {
		return m
	}
	o, err := v.Object()
	if err != nil {
		return m
	}
	m.Set = true
	o.Visit(func(k []byte, x *fastjson.Value) {
		if i := model.ExecutorMetricIndex(string(k)); i >= 0 {
			m.Values[i] = x.GetInt64()
		}
	})
	return m
}

func (d *Decoder) metricsUpdate(v *fastjson.Value) Event {
	e := EventExecutorMetricsUpdate{ExecutorID: d.str(v, "Executor ID")}
	for _, u := range v.GetArray("Executor Metrics Updated") {
		e.Updates = append(e.Updates, StageExecutorMetrics{StageID: u.GetInt("Stage ID"),
			StageAttempt: u.GetInt("Stage Attempt ID"), Metrics: executorMetrics(u.Get("Executor Metrics"))})
	}
	return &e
}

// endReason reads "Task End Reason" and renders the error text the way
// Spark's TaskEndReason.toErrorString does.
func endReason(v *fastjson.Value) TaskEndReason {
	if v == nil {
		return TaskEndReason{Reason: "Success"}
	}
	r := TaskEndReason{Reason: str(v, "Reason")}
	switch r.Reason {
	case "Success":
	case "ExceptionFailure":
		if full := v.Get("Full Stack Trace"); full != nil && full.Type() == fastjson.TypeString {
			r.ErrorMessage = str(v, "Full Stack Trace")
		} else {
			var b strings.Builder
			b.WriteString(str(v, "Class Name"))
			b.WriteString(": ")
			b.WriteString(str(v, "Description"))
			b.WriteString("\n")
			for _, f := range v.GetArray("Stack Trace") {
				b.WriteString("\tat ")
				b.WriteString(str(f, "Declaring Class"))
				b.WriteString(".")
				b.WriteString(str(f, "Method Name"))
				b.WriteString("(")
				b.WriteString(stackLocation(f))
				b.WriteString(")\n")
			}
			r.ErrorMessage = b.String()
		}
	case "FetchFailed":
		bm := v.Get("Block Manager Address")
		addr := "null"
		if bm != nil && bm.Type() == fastjson.TypeObject {
			addr = "BlockManagerId(" + str(bm, "Executor ID") + ", " + str(bm, "Host") + ", " + num(bm, "Port") + ", None)"
		}
		r.ErrorMessage = "FetchFailed(" + addr + ", shuffleId=" + num(v, "Shuffle ID") + ", mapIndex=" + num(v, "Map Index") +
			", mapId=" + num(v, "Map ID") + ", reduceId=" + num(v, "Reduce ID") + ", message=\n" + str(v, "Message") + "\n)"
	case "TaskCommitDenied":
		r.ErrorMessage = "TaskCommitDenied (Driver denied task commit) for job: " + num(v, "Job ID") +
			", partition: " + num(v, "Partition ID") + ", attemptNumber: " + num(v, "Attempt Number")
		r.KillReason = r.ErrorMessage
	case "TaskKilled":
		r.KillReason = str(v, "Kill Reason")
		if r.KillReason == "" {
			r.KillReason = "unknown reason"
		}
		r.ErrorMessage = r.KillReason
	case "ExecutorLostFailure":
		behavior := "unrelated to the running tasks"
		if x := v.Get("Exit Caused By App"); x == nil || x.GetBool() {
			behavior = "caused by one of the running tasks"
		}
		r.ErrorMessage = "ExecutorLostFailure (executor " + str(v, "Executor ID") + " exited " + behavior + ")"
		if x := v.Get("Loss Reason"); x != nil && x.Type() == fastjson.TypeString {
			r.ErrorMessage += " Reason: " + str(v, "Loss Reason")
		}
	case "TaskResultLost":
		r.ErrorMessage = "TaskResultLost (result lost from block manager)"
	case "Resubmitted":
		r.ErrorMessage = "Resubmitted (resubmitted due to lost executor)"
	default:
		r.ErrorMessage = "UnknownReason"
	}
	return r
}

func num(v *fastjson.Value, key string) string {
	x := v.Get(key)
	if x == nil {
		return "0"
	}
	return anyString(x)
}

func stackLocation(f *fastjson.Value) string {
	file := str(f, "File Name")
	line := f.GetInt("Line Number")
	switch {
	case line == -2:
		return "Native Method"
	case file == "":
		return "Unknown Source"
	case line >= 0:
		return file + ":" + itoa(line)
	default:
		return file
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

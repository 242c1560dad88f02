package sparkevent

import (
	"slices"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sparkdx/sparkdx/internal/model"
)

// The task events are most of a log, so their objects are walked once with
// Visit instead of looked up key by key.

// taskInfoSlot is where the value of a "Task Info" key goes, by its
// position in taskInfoKeys: one of the pointers for a scalar key sparkdx
// keeps, none for the others ("Partition ID", which may be absent or null,
// and "Accumulables" are read apart). Both decoders — fastjson below, the
// scanner in decode_fast.go — read a value their own way and store it
// through the slot, so the key → field map exists once.
func taskInfoSlot(ti *TaskInfo, k int) (i64 *int64, i *int, str *string, b *bool) {
	switch k {
	case tiTaskID:
		i64 = &ti.TaskID
	case tiIndex:
		i = &ti.Index
	case tiAttempt:
		i = &ti.Attempt
	case tiLaunchTime:
		i64 = &ti.LaunchTime
	case tiGettingResultTime:
		i64 = &ti.GettingResultTime
	case tiFinishTime:
		i64 = &ti.FinishTime
	case tiExecutorID:
		str = &ti.ExecutorID
	case tiHost:
		str = &ti.Host
	case tiLocality:
		str = &ti.Locality
	case tiSpeculative:
		b = &ti.Speculative
	case tiFailed:
		b = &ti.Failed
	case tiKilled:
		b = &ti.Killed
	}
	return i64, i, str, b
}

func (d *Decoder) taskInfo(v *fastjson.Value) TaskInfo {
	ti := TaskInfo{PartitionID: -1}
	if v == nil || v.Type() != fastjson.TypeObject {
		return ti
	}
	o, _ := v.Object()
	o.Visit(func(key []byte, x *fastjson.Value) {
		switch k := d.keys.taskInfo.index(key); k {
		case tiPartitionID:
			if x.Type() == fastjson.TypeNumber {
				ti.PartitionID = x.GetInt()
			}
		case tiAccumulables:
			d.sqlScratch = d.sqlScratch[:0]
			ti.Accumulables = d.accumulables(x, false, &d.sqlScratch)
			if len(d.sqlScratch) > 0 {
				ti.SQLUpdates = slices.Clone(d.sqlScratch)
			}
		default:
			i64, i, str, b := taskInfoSlot(&ti, k)
			switch {
			case i64 != nil:
				*i64 = x.GetInt64()
			case i != nil:
				*i = x.GetInt()
			case str != nil:
				*str = d.intern(x.GetStringBytes())
			case b != nil:
				*b = x.GetBool()
			}
		}
	})
	return ti
}

func (d *Decoder) taskEnd(v *fastjson.Value) Event {
	e := TaskEnd{}
	e.Info.PartitionID = -1
	e.Reason.Reason = "Success"
	o, _ := v.Object()
	o.Visit(func(k []byte, x *fastjson.Value) {
		switch string(k) {
		case "Stage ID":
			e.StageID = x.GetInt()
		case "Stage Attempt ID":
			e.StageAttempt = x.GetInt()
		case "Task Type":
			e.TaskType = d.intern(x.GetStringBytes())
		case "Task End Reason":
			e.Reason = endReason(x)
		case "Task Info":
			e.Info = d.taskInfo(x)
		case "Task Executor Metrics":
			e.ExecMetrics = executorMetrics(x)
		case "Task Metrics":
			if x.Type() == fastjson.TypeObject {
				taskMetrics(d.metrics, x, &e.Metrics)
			}
		}
	})
	// Spark reads a missing "Task Executor Metrics" as all zeros, which
	// still counts as a reported peak.
	e.ExecMetrics.Set = true
	return &e
}

// taskMetrics reads a "Task Metrics" object (or one of its groups, g)
// through the one table of Spark's task metrics.
func taskMetrics(g *model.MetricGroup, v *fastjson.Value, m *model.TaskMetrics) {
	hint := 0
	o, _ := v.Object()
	o.Visit(func(k []byte, x *fastjson.Value) {
		if x.Type() == fastjson.TypeObject {
			if sub := g.Group(k); sub != nil {
				taskMetrics(sub, x, m)
			}
		} else if f := g.Field(k, &hint); f != nil {
			*f.Of(m) = x.GetInt64()
		}
	})
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
	e := ExecutorMetricsUpdate{ExecutorID: d.str(v, "Executor ID")}
	for _, u := range v.GetArray("Executor Metrics Updated") {
		e.Updates = append(e.Updates, StagePeak{StageID: u.GetInt("Stage ID"),
			StageAttempt: u.GetInt("Stage Attempt ID"), Metrics: executorMetrics(u.Get("Executor Metrics"))})
	}
	return &e
}

// endReason reads "Task End Reason": an ExecutorLostFailure's and a
// FetchFailed's fields as they are (the History Server API renders their
// text), the others' error text the way Spark's toErrorString does.
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
			// Logs before Spark 1.2 have no full trace: ExceptionFailure's
			// exceptionString then joins the frames, each indented.
			var b strings.Builder
			b.WriteString(str(v, "Class Name"))
			b.WriteString(": ")
			b.WriteString(str(v, "Description"))
			b.WriteString("\n")
			for i, f := range v.GetArray("Stack Trace") {
				if i > 0 {
					b.WriteString("\n")
				}
				b.WriteString("        ")
				b.WriteString(str(f, "Declaring Class"))
				b.WriteString(".")
				b.WriteString(str(f, "Method Name"))
				b.WriteString("(")
				b.WriteString(stackLocation(f))
				b.WriteString(")")
			}
			r.ErrorMessage = b.String()
		}
	case "FetchFailed":
		f := &model.FetchFailure{ShuffleID: v.GetInt64("Shuffle ID"), MapID: v.GetInt64("Map ID"),
			ReduceID: v.GetInt64("Reduce ID"), Message: str(v, "Message")}
		if bm := v.Get("Block Manager Address"); bm != nil && bm.Type() == fastjson.TypeObject {
			f.HasAddress, f.ExecutorID, f.Host, f.Port = true, str(bm, "Executor ID"), str(bm, "Host"), bm.GetInt64("Port")
		}
		if v.Get("Map Index") != nil { // logs before Spark 3.0 have none
			f.MapIndex, f.HasMapIndex = v.GetInt64("Map Index"), true
		}
		r.Fetch = f
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
		l := &model.ExecutorLoss{ExecutorID: str(v, "Executor ID"), CausedByApp: true}
		if x := v.Get("Exit Caused By App"); x != nil {
			l.CausedByApp = x.GetBool()
		}
		if x := v.Get("Loss Reason"); x != nil && x.Type() == fastjson.TypeString {
			l.Reason, l.HasReason = str(v, "Loss Reason"), true
		}
		r.Loss = l
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

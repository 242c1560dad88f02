// Package eventlog reads Spark event logs: it opens them (file, rolling
// directory, compressed, s3://), decodes each JSON line into a typed event
// and replays the events into a model.Attempt the way Spark's
// AppStatusListener builds the History Server's state.
package eventlog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Decoder turns event-log lines into events. It reuses its parser and
// interns the short strings tasks repeat (hosts, executor ids), so one
// Decoder must not be used by two goroutines at once.
type Decoder struct {
	p    fastjson.Parser
	strs map[string]string
}

// NewDecoder returns a Decoder.
func NewDecoder() *Decoder { return &Decoder{strs: make(map[string]string, 64)} }

// errNoEvent marks a JSON line without an "Event" field.
var errNoEvent = errors.New(`missing "Event"`)

// DecodeLine decodes one JSON line. A line that is valid JSON but an event
// replay does not know yields EventUnknown.
func (d *Decoder) DecodeLine(line []byte) (Event, error) {
	v, err := d.p.ParseBytes(line)
	if err != nil {
		return nil, err
	}
	if v.Type() != fastjson.TypeObject {
		return nil, errors.New("not a JSON object")
	}
	nb := v.GetStringBytes("Event")
	if nb == nil {
		return nil, errNoEvent
	}
	name := shortEventName(nb)
	ev := d.decode(name, v)
	if ev == nil {
		return EventUnknown{Name: string(nb)}, nil
	}
	return ev, nil
}

// shortEventName drops a package prefix and an outer class
// ("org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent").
func shortEventName(b []byte) string {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '.' || b[i] == '$' {
			return string(b[i+1:])
		}
	}
	return string(b)
}

func (d *Decoder) decode(name string, v *fastjson.Value) Event {
	switch name {
	case "SparkListenerTaskEnd":
		return d.taskEnd(v)
	case "SparkListenerTaskStart":
		return EventTaskStart{StageID: v.GetInt("Stage ID"), StageAttempt: v.GetInt("Stage Attempt ID"),
			Info: d.taskInfo(v.Get("Task Info"))}
	case "SparkListenerTaskGettingResult":
		return EventTaskGettingResult{Info: d.taskInfo(v.Get("Task Info"))}
	case "SparkListenerStageSubmitted":
		return EventStageSubmitted{Info: d.stageInfo(v.Get("Stage Info")), Props: jobProps(v.Get("Properties"))}
	case "SparkListenerStageCompleted":
		return EventStageCompleted{Info: d.stageInfo(v.Get("Stage Info"))}
	case "SparkListenerJobStart":
		return d.jobStart(v)
	case "SparkListenerJobEnd":
		return EventJobEnd{JobID: v.GetInt("Job ID"), Time: getTime(v, "Completion Time"),
			Succeeded: string(v.GetStringBytes("Job Result", "Result")) == "JobSucceeded"}
	case "SparkListenerStageExecutorMetrics":
		return EventStageExecutorMetrics{ExecutorID: d.str(v, "Executor ID"), StageID: v.GetInt("Stage ID"),
			StageAttempt: v.GetInt("Stage Attempt ID"), Metrics: executorMetrics(v.Get("Executor Metrics"))}
	case "SparkListenerExecutorMetricsUpdate":
		return d.metricsUpdate(v)
	case "SparkListenerLogStart":
		return EventLogStart{SparkVersion: string(v.GetStringBytes("Spark Version"))}
	case "SparkListenerApplicationStart":
		return EventAppStart{Name: str(v, "App Name"), AppID: str(v, "App ID"), AttemptID: str(v, "App Attempt ID"),
			User: str(v, "User"), Time: v.GetInt64("Timestamp"),
			DriverLogs: pairs(v.Get("Driver Logs")), DriverAttributes: pairs(v.Get("Driver Attributes"))}
	case "SparkListenerApplicationEnd":
		e := EventAppEnd{Time: v.GetInt64("Timestamp")}
		if x := v.Get("ExitCode"); x != nil && x.Type() == fastjson.TypeNumber {
			c := x.GetInt()
			e.ExitCode = &c
		}
		return e
	case "SparkListenerEnvironmentUpdate":
		return environment(v)
	case "SparkListenerResourceProfileAdded":
		return resourceProfile(v)
	case "SparkListenerBlockManagerAdded":
		return EventBlockManagerAdded{ExecutorID: d.str(v, "Block Manager ID", "Executor ID"),
			Host: d.str(v, "Block Manager ID", "Host"), Port: v.GetInt("Block Manager ID", "Port"),
			MaxMem: v.GetInt64("Maximum Memory"), Time: v.GetInt64("Timestamp"),
			MaxOnHeap: optInt64(v, -1, "Maximum Onheap Memory"), MaxOffHeap: optInt64(v, -1, "Maximum Offheap Memory")}
	case "SparkListenerBlockManagerRemoved":
		return EventBlockManagerRemoved{ExecutorID: d.str(v, "Block Manager ID", "Executor ID"), Time: v.GetInt64("Timestamp")}
	case "SparkListenerExecutorAdded":
		return d.executorAdded(v)
	case "SparkListenerExecutorRemoved":
		return EventExecutorRemoved{ExecutorID: d.str(v, "Executor ID"), Reason: str(v, "Removed Reason"),
			Time: v.GetInt64("Timestamp")}
	case "SparkListenerExecutorBlacklisted", "SparkListenerExecutorExcluded":
		return d.exclusion(v, false, false, true)
	case "SparkListenerExecutorUnblacklisted", "SparkListenerExecutorUnexcluded":
		return d.exclusion(v, false, false, false)
	case "SparkListenerNodeBlacklisted", "SparkListenerNodeExcluded":
		return d.exclusion(v, true, false, true)
	case "SparkListenerNodeUnblacklisted", "SparkListenerNodeUnexcluded":
		return d.exclusion(v, true, false, false)
	case "SparkListenerExecutorBlacklistedForStage", "SparkListenerExecutorExcludedForStage":
		return d.exclusion(v, false, true, true)
	case "SparkListenerNodeBlacklistedForStage", "SparkListenerNodeExcludedForStage":
		return d.exclusion(v, true, true, true)
	case "SparkListenerMiscellaneousProcessAdded":
		return miscProcess(v)
	case "SparkListenerUnpersistRDD":
		return EventUnpersistRDD{RDDID: v.GetInt("RDD ID")}
	case "SparkListenerBlockUpdated":
		return d.blockUpdated(v)
	case "SparkListenerSQLExecutionStart":
		return EventSQLStart{ExecutionID: v.GetInt64("executionId"), RootID: optInt64(v, v.GetInt64("executionId"), "rootExecutionId"),
			Description: str(v, "description"), Details: str(v, "details"), PhysicalPlan: str(v, "physicalPlanDescription"),
			Plan: planNode(v.Get("sparkPlanInfo"), 0), Time: v.GetInt64("time")}
	case "SparkListenerSQLExecutionEnd":
		return EventSQLEnd{ExecutionID: v.GetInt64("executionId"), Time: v.GetInt64("time"), ErrorMessage: str(v, "errorMessage")}
	case "SparkListenerSQLAdaptiveExecutionUpdate":
		return EventSQLAdaptive{ExecutionID: v.GetInt64("executionId"), PhysicalPlan: str(v, "physicalPlanDescription"),
			Plan: planNode(v.Get("sparkPlanInfo"), 0)}
	case "SparkListenerDriverAccumUpdates":
		e := EventSQLDriverAccums{ExecutionID: v.GetInt64("executionId")}
		for _, u := range v.GetArray("accumUpdates") {
			if a := u.GetArray(); len(a) == 2 {
				e.Updates = append(e.Updates, [2]int64{a[0].GetInt64(), a[1].GetInt64()})
			}
		}
		return e
	case "QueryStartedEvent":
		return EventQueryStarted{ID: str(v, "id"), RunID: str(v, "runId"), Name: str(v, "name"), Time: isoTime(str(v, "timestamp"))}
	case "QueryProgressEvent", "QueryProgress":
		return queryProgress(v)
	case "QueryTerminatedEvent", "QueryTerminated":
		return EventQueryTerminated{ID: str(v, "id"), RunID: str(v, "runId"), Exception: str(v, "exception")}
	}
	return nil
}

// str returns a string field ("" when absent or not a string).
func str(v *fastjson.Value, keys ...string) string { return string(v.GetStringBytes(keys...)) }

// str interns a repeated short string field.
func (d *Decoder) str(v *fastjson.Value, keys ...string) string {
	return d.intern(v.GetStringBytes(keys...))
}

// intern returns b as a string shared with earlier equal ones.
func (d *Decoder) intern(b []byte) string {
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.strs) < 1<<14 {
		d.strs[s] = s
	}
	return s
}

func optInt64(v *fastjson.Value, def int64, keys ...string) int64 {
	x := v.Get(keys...)
	if x == nil || x.Type() != fastjson.TypeNumber {
		return def
	}
	return x.GetInt64()
}

// getTime returns a time field, or model.NoTime when absent.
func getTime(v *fastjson.Value, key string) int64 { return optInt64(v, model.NoTime, key) }

// anyString renders a scalar the way Spark's accumulator values print.
func anyString(v *fastjson.Value) string {
	if v == nil {
		return ""
	}
	switch v.Type() {
	case fastjson.TypeString:
		return string(v.GetStringBytes())
	case fastjson.TypeNull:
		return ""
	default:
		return string(v.MarshalTo(nil))
	}
}

func pairs(v *fastjson.Value) [][2]string {
	if v == nil {
		return nil
	}
	o, err := v.Object()
	if err != nil || o == nil {
		return nil
	}
	out := make([][2]string, 0, o.Len())
	o.Visit(func(k []byte, x *fastjson.Value) {
		out = append(out, [2]string{string(k), anyString(x)})
	})
	return out
}

func ints(v *fastjson.Value) []int {
	a := v.GetArray()
	out := make([]int, 0, len(a))
	for _, x := range a {
		out = append(out, x.GetInt())
	}
	return out
}

func (d *Decoder) accumulables(v *fastjson.Value) []model.Accumulable {
	a := v.GetArray()
	if len(a) == 0 {
		return nil
	}
	out := make([]model.Accumulable, 0, len(a))
	for _, x := range a {
		acc := model.Accumulable{ID: x.GetInt64("ID"), Name: d.str(x, "Name"), Internal: x.GetBool("Internal"),
			SQL: string(x.GetStringBytes("Metadata")) == "sql"}
		if acc.Internal || acc.SQL || strings.HasPrefix(acc.Name, "internal.metrics.") {
			// Neither the stage nor the task pages show these; skip the copy.
			acc.Internal = true
			if acc.SQL {
				// SQL plan metrics feed the analyzer: keep the number only.
				key := "Update"
				if x.Get(key) == nil {
					key = "Value"
				}
				acc.Num = accNum(x.Get(key))
			}
			out = append(out, acc)
			continue
		}
		if u := x.Get("Update"); u != nil {
			acc.Update, acc.HasUpdate = anyString(u), true
		}
		if val := x.Get("Value"); val != nil {
			acc.Value = anyString(val)
		}
		out = append(out, acc)
	}
	return out
}

func jobProps(v *fastjson.Value) JobProps {
	p := JobProps{SQLExecutionID: -1}
	if v == nil {
		return p
	}
	if x := v.Get("spark.jobGroup.id"); x != nil {
		p.JobGroup, p.HasJobGroup = anyString(x), true
	}
	if x := v.Get("spark.job.description"); x != nil {
		p.Description, p.HasDescription = anyString(x), true
	}
	p.Pool = str(v, "spark.scheduler.pool")
	if x := v.Get("spark.sql.execution.id"); x != nil {
		var id int64
		if _, err := fmt.Sscan(anyString(x), &id); err == nil {
			p.SQLExecutionID = id
		}
	}
	if t := str(v, "spark.job.tags"); t != "" {
		p.JobTags = strings.Split(t, ",")
	}
	return p
}

// accNum reads an accumulator value written as a number or a string.
func accNum(v *fastjson.Value) int64 {
	if v == nil {
		return 0
	}
	if v.Type() == fastjson.TypeNumber {
		return v.GetInt64()
	}
	b, err := v.StringBytes()
	if err != nil {
		return 0
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

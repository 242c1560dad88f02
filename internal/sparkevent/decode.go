// Package sparkevent decodes one line of a Spark event log, a JSON object
// written by Spark's JsonProtocol, into a typed SparkListener event
// (TaskEnd, JobStart, …), the way the History Server reads it. It
// owns the event types and the decoding, with a fast path for the task
// events that are most of every log; it does no I/O and builds no model
// (package eventlog reads the bytes, package replay applies the events).
package sparkevent

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Decoder turns event-log lines into events. It reuses its parser and
// interns the short strings tasks repeat (hosts, executor ids), so one
// Decoder must not be used by two goroutines at once.
type Decoder struct {
	p    fastjson.Parser
	sub  fastjson.Parser // for parts of fast-path lines
	strs map[string]string
	// slab, when set, supplies the task events of the fast path; the
	// replay sets it to the chunk being decoded, whose events live until
	// the chunk is applied.
	slab *TaskSlab
	// sqlScratch collects a task's SQL metric updates, copied out once at
	// their exact size (one allocation per task instead of one per growth).
	sqlScratch []AccumUpdate
	// metrics is the table of Spark's task metrics the decoders read by.
	metrics *model.MetricGroup
	// keys are the key orders the fast path reads task events by.
	keys decoderKeys
}

// NewDecoder returns a Decoder.
func NewDecoder() *Decoder {
	m := model.TaskMetricFields()
	return &Decoder{strs: make(map[string]string, 64), metrics: m, keys: newDecoderKeys(m)}
}

// releaseAfter is the length of a line after which the decoder lets go of
// its parser's memory.
const releaseAfter = 1 << 20

// The errors of lines that are whole JSON but not events, unlike the
// syntax errors of a line cut short while Spark was writing it.
var (
	ErrNoEvent   = errors.New(`missing "Event"`)
	ErrNotObject = errors.New("not a JSON object")
)

// DecodeLine decodes one JSON line. A line that is valid JSON but an event
// replay does not know yields Unknown.
func (d *Decoder) DecodeLine(line []byte) (Event, error) {
	if ev := d.fastDecode(line); ev != nil {
		return ev, nil
	}
	return d.decodeSlow(line)
}

// decodeSlow decodes any line through a fastjson tree.
func (d *Decoder) decodeSlow(line []byte) (Event, error) {
	if len(line) > releaseAfter {
		// The parser keeps the tree's memory for the next line (many
		// times the line): not for a line this long.
		defer func() { d.p = fastjson.Parser{} }()
	}
	v, err := d.p.ParseBytes(line)
	if err != nil {
		return nil, err
	}
	if v.Type() != fastjson.TypeObject {
		return nil, ErrNotObject
	}
	nb := v.GetStringBytes("Event")
	if nb == nil {
		return nil, ErrNoEvent
	}
	name := shortEventName(nb)
	for _, key := range requiredFields(name) {
		if v.Get(key) == nil {
			return nil, fmt.Errorf("missing %q", key)
		}
	}
	ev := d.decode(name, v)
	if ev == nil {
		return Unknown{Name: string(nb)}, nil
	}
	return ev, nil
}

// requiredFields are the fields without which Spark's JsonProtocol cannot
// read an event (the History Server then skips the line as malformed).
func requiredFields(name string) []string {
	switch name {
	case "SparkListenerTaskStart", "SparkListenerTaskEnd", "SparkListenerTaskGettingResult":
		return []string{"Task Info"}
	case "SparkListenerStageSubmitted", "SparkListenerStageCompleted":
		return []string{"Stage Info"}
	case "SparkListenerJobStart", "SparkListenerJobEnd":
		return []string{"Job ID"}
	case "SparkListenerExecutorAdded":
		return []string{"Executor ID", "Executor Info"}
	case "SparkListenerExecutorRemoved", "SparkListenerStageExecutorMetrics", "SparkListenerExecutorMetricsUpdate":
		return []string{"Executor ID"}
	case "SparkListenerBlockManagerAdded", "SparkListenerBlockManagerRemoved":
		return []string{"Block Manager ID"}
	case "SparkListenerUnpersistRDD":
		return []string{"RDD ID"}
	case "SparkListenerBlockUpdated":
		return []string{"Block Updated Info"}
	case "SparkListenerSQLExecutionStart", "SparkListenerSQLExecutionEnd":
		return []string{"executionId"}
	}
	return nil
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
		return &TaskStart{StageID: v.GetInt("Stage ID"), StageAttempt: v.GetInt("Stage Attempt ID"),
			Info: d.taskInfo(v.Get("Task Info"))}
	case "SparkListenerTaskGettingResult":
		return TaskGettingResult{Info: d.taskInfo(v.Get("Task Info"))}
	case "SparkListenerStageSubmitted":
		return StageSubmitted{Info: d.stageInfo(v.Get("Stage Info")), Props: jobProps(v.Get("Properties"))}
	case "SparkListenerStageCompleted":
		return StageCompleted{Info: d.stageInfo(v.Get("Stage Info"))}
	case "SparkListenerJobStart":
		return d.jobStart(v)
	case "SparkListenerJobEnd":
		return JobEnd{JobID: v.GetInt("Job ID"), Time: getTime(v, "Completion Time"),
			Succeeded: string(v.GetStringBytes("Job Result", "Result")) == "JobSucceeded",
			Error:     str(v, "Job Result", "Exception", "Message")}
	case "SparkListenerStageExecutorMetrics":
		return StageExecutorMetrics{ExecutorID: d.str(v, "Executor ID"), StageID: v.GetInt("Stage ID"),
			StageAttempt: v.GetInt("Stage Attempt ID"), Metrics: executorMetrics(v.Get("Executor Metrics"))}
	case "SparkListenerExecutorMetricsUpdate":
		return d.metricsUpdate(v)
	case "SparkListenerLogStart":
		return LogStart{SparkVersion: string(v.GetStringBytes("Spark Version"))}
	case "SparkListenerApplicationStart":
		return AppStart{Name: str(v, "App Name"), AppID: str(v, "App ID"), AttemptID: str(v, "App Attempt ID"),
			User: str(v, "User"), Time: v.GetInt64("Timestamp"),
			DriverLogs: pairs(v.Get("Driver Logs")), DriverAttributes: pairs(v.Get("Driver Attributes"))}
	case "SparkListenerApplicationEnd":
		e := AppEnd{Time: v.GetInt64("Timestamp")}
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
		return BlockManagerAdded{ExecutorID: d.str(v, "Block Manager ID", "Executor ID"),
			Host: d.str(v, "Block Manager ID", "Host"), Port: v.GetInt("Block Manager ID", "Port"),
			MaxMem: v.GetInt64("Maximum Memory"), Time: v.GetInt64("Timestamp"),
			MaxOnHeap: optInt64(v, -1, "Maximum Onheap Memory"), MaxOffHeap: optInt64(v, -1, "Maximum Offheap Memory")}
	case "SparkListenerBlockManagerRemoved":
		return BlockManagerRemoved{ExecutorID: d.str(v, "Block Manager ID", "Executor ID"), Time: v.GetInt64("Timestamp")}
	case "SparkListenerExecutorAdded":
		return d.executorAdded(v)
	case "SparkListenerExecutorRemoved":
		return ExecutorRemoved{ExecutorID: d.str(v, "Executor ID"), Reason: str(v, "Removed Reason"),
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
		return UnpersistRDD{RDDID: v.GetInt("RDD ID")}
	case "SparkListenerBlockUpdated":
		return d.blockUpdated(v)
	case "SparkListenerSQLExecutionStart":
		return SQLStart{ExecutionID: v.GetInt64("executionId"), RootID: optInt64(v, v.GetInt64("executionId"), "rootExecutionId"),
			QueryID: str(v, "queryId"), ModifiedConfigs: pairs(v.Get("modifiedConfigs")), Description: str(v, "description"), Details: str(v, "details"), PhysicalPlan: str(v, "physicalPlanDescription"),
			Plan: planNode(v.Get("sparkPlanInfo"), 0), Time: v.GetInt64("time")}
	case "SparkListenerSQLExecutionEnd":
		em := v.Get("errorMessage")
		return SQLEnd{ExecutionID: v.GetInt64("executionId"), Time: v.GetInt64("time"), ErrorMessage: str(v, "errorMessage"),
			HasErrorMessage: em != nil && em.Type() == fastjson.TypeString}
	case "SparkListenerSQLAdaptiveSQLMetricUpdates":
		e := SQLAdaptiveMetrics{ExecutionID: v.GetInt64("executionId")}
		for _, m := range v.GetArray("sqlPlanMetrics") {
			e.Metrics = append(e.Metrics, model.SQLMetric{Name: str(m, "name"), AccumulatorID: m.GetInt64("accumulatorId"),
				MetricType: str(m, "metricType")})
		}
		return e
	case "SparkListenerSQLAdaptiveExecutionUpdate":
		return SQLAdaptive{ExecutionID: v.GetInt64("executionId"), PhysicalPlan: str(v, "physicalPlanDescription"),
			Plan: planNode(v.Get("sparkPlanInfo"), 0)}
	case "SparkListenerDriverAccumUpdates":
		e := SQLDriverAccums{ExecutionID: v.GetInt64("executionId")}
		for _, u := range v.GetArray("accumUpdates") {
			if a := u.GetArray(); len(a) == 2 {
				e.Updates = append(e.Updates, [2]int64{a[0].GetInt64(), a[1].GetInt64()})
			}
		}
		return e
	case "SparkListenerSpeculativeTaskSubmitted", "SparkListenerUnschedulableTaskSetAdded",
		"SparkListenerUnschedulableTaskSetRemoved", "SparkListenerExecutorDecommissioned",
		"SparkListenerEffectiveSQLConf",
		"SparkListenerExecutorUnexcludedForStage", "QueryIdleEvent":
		// Spark writes these but the History Server's state does not
		// depend on them.
		return Ignored{Name: name}
	case "QueryStartedEvent", "QueryStarted":
		return queryStarted(v)
	case "QueryProgressEvent", "QueryProgress":
		return queryProgress(v)
	case "QueryTerminatedEvent", "QueryTerminated":
		return queryTerminated(v)
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

// accumulables reads an "Accumulables" array. Internal accumulators (task
// metrics, which "Task Metrics" carries anyway) are dropped, and so are SQL
// metrics unless keepSQL: the History Server shows neither on stages or
// tasks, and per-task copies would dominate memory on large logs.
//
// sqlUpdates, when not nil, collects the SQL metrics' updates.
func (d *Decoder) accumulables(v *fastjson.Value, keepSQL bool, sqlUpdates *[]AccumUpdate) []model.Accumulable {
	a := v.GetArray()
	if len(a) == 0 {
		return nil
	}
	var out []model.Accumulable
	for _, x := range a {
		o, err := x.Object()
		if err != nil {
			continue
		}
		var acc model.Accumulable
		var update, value *fastjson.Value
		o.Visit(func(k []byte, f *fastjson.Value) {
			switch string(k) {
			case "ID":
				acc.ID = f.GetInt64()
			case "Name":
				acc.Name = d.intern(f.GetStringBytes())
			case "Internal":
				acc.Internal = f.GetBool()
			case "Metadata":
				acc.SQL = string(f.GetStringBytes()) == "sql"
			case "Update":
				update = f
			case "Value":
				value = f
			}
		})
		if acc.SQL && sqlUpdates != nil && update != nil {
			if n, ok := accumInt(update); ok {
				*sqlUpdates = append(*sqlUpdates, AccumUpdate{ID: acc.ID, Value: n})
			}
		}
		// Spark marks SQL metrics internal too; they stay when keepSQL.
		if (acc.Internal && !acc.SQL) || (acc.SQL && !keepSQL) {
			continue
		}
		if update != nil {
			acc.Update, acc.HasUpdate = anyString(update), true
		}
		acc.Value = anyString(value)
		out = append(out, acc)
	}
	return out
}

// accumInt reads an accumulator update as a long: a number, or a string
// holding one (as older Spark wrote them).
func accumInt(v *fastjson.Value) (int64, bool) {
	switch v.Type() {
	case fastjson.TypeNumber:
		n, err := v.Int64()
		return n, err == nil
	case fastjson.TypeString:
		n, err := strconv.ParseInt(string(v.GetStringBytes()), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// tagTraceParent is the value of a job tag "traceparent=…" as Spark
// writes the tags a session added: Spark Connect's
// "SparkConnect_SessionTag_User_<user>_Session_<id>_Tag_traceparent=…",
// a classic session's "spark-session-<id>-thread-<id>-traceparent=…", or
// the bare tag SparkContext.addJobTag sets. A tag cannot carry a
// tracestate: commas separate tags.
func tagTraceParent(tags []string) string {
	const key = "traceparent="
	for _, tag := range tags {
		i := strings.LastIndex(tag, key)
		if i == 0 || i > 0 && (tag[i-1] == '_' || tag[i-1] == '-') {
			return tag[i+len(key):]
		}
	}
	return ""
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
		for _, tag := range strings.Split(t, ",") {
			if tag != "" && !slices.Contains(p.JobTags, tag) {
				p.JobTags = append(p.JobTags, tag)
			}
		}
		slices.Sort(p.JobTags)
	}
	// The caller's W3C trace context, the most specific first: "traceparent"
	// set as a local property (an Airflow or Connect server integration);
	// else a job tag ending in "traceparent=…" (addTag: one operation's);
	// else the session's spark.otel.traceparent, which Spark copies into
	// the properties of every SQL job (spark.conf.set in a Spark Connect
	// session, or the submit-time value).
	p.TraceParent, p.TraceState = str(v, "traceparent"), str(v, "tracestate")
	if p.TraceParent == "" {
		p.TraceParent = tagTraceParent(p.JobTags)
	}
	if p.TraceParent == "" {
		p.TraceParent, p.TraceState = str(v, "spark.otel.traceparent"), str(v, "spark.otel.tracestate")
	}
	for _, k := range orchestratorProps {
		if x := str(v, k); x != "" {
			p.Orchestrator = append(p.Orchestrator, [2]string{k, x})
		}
	}
	return p
}

// orchestratorProps are the job-level local properties that name the
// orchestrator's run of an application where its Spark properties do
// not: Databricks Jobs set the job's id, the task run's id and, for a
// multi-task job, the job run's id on every job a task's code starts
// (seen on Databricks Runtime 13.3 job runs); the cluster's Spark
// properties carry none of them, so a recurring Databricks job is
// recognised only from these.
var orchestratorProps = [...]string{"spark.databricks.job.id", "spark.databricks.job.runId", "spark.databricks.job.parentRunId"}

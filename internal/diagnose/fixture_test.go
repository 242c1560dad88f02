package diagnose_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// This file builds the synthetic event logs under testdata/<rule>/. They
// are written as Spark writes them (one JSON event per line, Spark's key
// names) and read back through the real replay. Refresh them with
//
//	go test ./internal/diagnose -run TestFixtures -update

const t0 = int64(1700000000000) // application start of every fixture

// obj is a JSON object that keeps its keys in the order given, so the
// fixtures read like Spark's own logs ("Event" first).
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(o[i].(string))
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// fx accumulates the lines of one fixture log.
type fx struct {
	lines  []string
	taskID int64
}

func (f *fx) emit(o obj) {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err) // a bug in a fixture definition, not input
	}
	f.lines = append(f.lines, string(b))
}

func (f *fx) bytes() []byte { return []byte(strings.Join(f.lines, "\n") + "\n") }

// newApp starts a log: LogStart, EnvironmentUpdate with props
// (key, value, key, value, ...), ApplicationStart at t0.
func newApp(name string, props ...string) *fx {
	f := &fx{}
	f.emit(obj{"Event", "SparkListenerLogStart", "Spark Version", "3.5.1"})
	sp := map[string]string{"spark.master": "yarn", "spark.app.name": name, "spark.executor.memory": "4g",
		"spark.executor.cores": "4"}
	for i := 0; i+1 < len(props); i += 2 {
		sp[props[i]] = props[i+1]
	}
	keys := make([]string, 0, len(sp))
	for k := range sp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	spo := obj{}
	for _, k := range keys {
		spo = append(spo, k, sp[k])
	}
	f.emit(obj{"Event", "SparkListenerEnvironmentUpdate", "JVM Information", obj{"Java Version", "17.0.10"},
		"Spark Properties", spo, "Hadoop Properties", obj{}, "System Properties", obj{}, "Classpath Entries", obj{}})
	f.emit(obj{"Event", "SparkListenerApplicationStart", "App Name", name, "App ID", "application_1700000000000_" + name,
		"Timestamp", t0, "User", "etl"})
	return f
}

// executor adds an executor at t0+at ms.
func (f *fx) executor(id, host string, cores int, at int64) {
	f.emit(obj{"Event", "SparkListenerExecutorAdded", "Timestamp", t0 + at, "Executor ID", id,
		"Executor Info", obj{"Host", host, "Total Cores", cores, "Log Urls", obj{}, "Attributes", obj{},
			"Resources", obj{}, "Resource Profile Id", 0}})
	f.emit(obj{"Event", "SparkListenerBlockManagerAdded", "Block Manager ID", obj{"Executor ID", id, "Host", host, "Port", 40000},
		"Maximum Memory", 2254857830, "Timestamp", t0 + at, "Maximum Onheap Memory", 2254857830, "Maximum Offheap Memory", 0})
}

func (f *fx) executorRemoved(id string, at int64, reason string) { f.emit(removed(id, at, reason)) }

func removed(id string, at int64, reason string) obj {
	return obj{"Event", "SparkListenerExecutorRemoved", "Timestamp", t0 + at, "Executor ID", id, "Removed Reason", reason}
}

func (f *fx) appEnd(at int64) {
	f.emit(obj{"Event", "SparkListenerApplicationEnd", "Timestamp", t0 + at})
}

// task is one task attempt of a fixture stage. Times are ms after the
// stage's submission; zero metrics are left out of the log.
type task struct {
	exec, host          string
	index, attempt      int
	launch, dur         int64
	run, gc             int64 // run defaults to dur − 5 ms
	inBytes, shRead     int64
	fetchWait           int64
	shWrite, shWriteNs  int64
	memSpill, diskSpill int64
	outBytes, outRecs   int64
	resultSize          int64
	speculative         bool
	reason              obj // Task End Reason; nil: Success
	execMetrics         obj // Task Executor Metrics
	accums              []accum
	running             bool // no TaskEnd (the log stops while it runs)
}

// accum is a SQL metric update a task carries.
type accum struct {
	id    int64
	name  string
	value int64
}

// stage is one fixture stage attempt.
type stage struct {
	id, attempt int
	name        string
	numTasks    int // 0: len(tasks)
	parents     []int
	submit      int64 // ms after t0
	tasks       []task
	failure     string
	open        bool    // never completes
	during      []timed // other events to place among the tasks' by time
	// plugin are accumulables a plugin registers (not SQL metrics), in the
	// stage's completion as Spark writes them: name and value as a string.
	plugin [][2]string
}

// timed is an event at t0+at ms.
type timed struct {
	at int64
	ev obj
}

func (s *stage) info(withTimes bool, end int64) obj {
	n := s.numTasks
	if n == 0 {
		n = len(s.tasks)
	}
	name := s.name
	if name == "" {
		name = fmt.Sprintf("stage %d", s.id)
	}
	parents := s.parents
	if parents == nil {
		parents = []int{}
	}
	o := obj{"Stage ID", s.id, "Stage Attempt ID", s.attempt, "Stage Name", name, "Number of Tasks", n,
		"RDD Info", []any{}, "Parent IDs", parents, "Details", "", "Resource Profile Id", 0}
	if withTimes {
		o = append(o, "Submission Time", t0+s.submit)
		if end > 0 {
			o = append(o, "Completion Time", t0+end)
		}
		if s.failure != "" {
			o = append(o, "Failure Reason", s.failure)
		}
	}
	return o
}

// job runs stages in order as one job (with sqlID ≥ 0 inside that SQL
// execution) and returns the time its last stage completed.
func (f *fx) job(id int, sqlID int64, stages ...*stage) int64 {
	var ids []int
	var infos []any
	for _, s := range stages {
		if !slices.Contains(ids, s.id) { // a re-attempt runs in the same job
			ids = append(ids, s.id)
			infos = append(infos, s.info(false, 0))
		}
	}
	props := obj{}
	if sqlID >= 0 {
		props = obj{"spark.sql.execution.id", fmt.Sprint(sqlID)}
	}
	f.emit(obj{"Event", "SparkListenerJobStart", "Job ID", id, "Submission Time", t0 + stages[0].submit,
		"Stage Infos", infos, "Stage IDs", ids, "Properties", props})
	var end int64
	open := false
	for _, s := range stages {
		end = max(end, f.runStage(s))
		open = open || s.open
	}
	if open {
		return end
	}
	result := obj{"Result", "JobSucceeded"}
	if last := stages[len(stages)-1]; last.failure != "" {
		result = obj{"Result", "JobFailed", "Exception", obj{"Message", last.failure}}
	}
	f.emit(obj{"Event", "SparkListenerJobEnd", "Job ID", id, "Completion Time", t0 + end + 1, "Job Result", result})
	return end + 1
}

// runStage emits a stage attempt and its tasks; it returns its end.
func (f *fx) runStage(s *stage) int64 {
	f.emit(obj{"Event", "SparkListenerStageSubmitted", "Stage Info", s.info(true, 0), "Properties", obj{}})
	end := s.submit
	type ev struct {
		at   int64
		line obj
	}
	var evs []ev
	stageAccums := map[int64]*accum{}
	for i := range s.tasks {
		t := s.tasks[i]
		f.taskID++
		launch := t0 + s.submit + t.launch
		info := obj{"Task ID", f.taskID, "Index", t.index, "Attempt", t.attempt, "Partition ID", t.index,
			"Launch Time", launch, "Executor ID", t.exec, "Host", t.host, "Locality", "PROCESS_LOCAL",
			"Speculative", t.speculative}
		evs = append(evs, ev{launch, obj{"Event", "SparkListenerTaskStart", "Stage ID", s.id,
			"Stage Attempt ID", s.attempt, "Task Info", info}})
		if t.running {
			continue
		}
		finish := launch + t.dur
		end = max(end, s.submit+t.launch+t.dur)
		reason := t.reason
		failed, killed := false, false
		if reason == nil {
			reason = obj{"Reason", "Success"}
		} else if reason[1] == "TaskKilled" {
			killed = true
		} else {
			failed = true
		}
		done := append(append(obj{}, info...), "Finish Time", finish, "Failed", failed, "Killed", killed)
		if len(t.accums) > 0 {
			var acc []any
			for _, a := range t.accums {
				acc = append(acc, obj{"ID", a.id, "Name", a.name, "Update", fmt.Sprint(a.value),
					"Value", fmt.Sprint(a.value), "Internal", true, "Count Failed Values", true, "Metadata", "sql"})
				if !failed && !killed {
					if stageAccums[a.id] == nil {
						stageAccums[a.id] = &accum{id: a.id, name: a.name}
					}
					stageAccums[a.id].value += a.value
				}
			}
			done = append(done, "Accumulables", acc)
		}
		line := obj{"Event", "SparkListenerTaskEnd", "Stage ID", s.id, "Stage Attempt ID", s.attempt,
			"Task Type", "ResultTask", "Task End Reason", reason, "Task Info", done}
		if t.execMetrics != nil {
			line = append(line, "Task Executor Metrics", t.execMetrics)
		}
		line = append(line, "Task Metrics", t.metrics())
		evs = append(evs, ev{finish, line})
	}
	for _, d := range s.during {
		evs = append(evs, ev{t0 + d.at, d.ev})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	for _, e := range evs {
		f.emit(e.line)
	}
	if s.open {
		return end
	}
	end += 2
	info := s.info(true, end)
	if len(stageAccums) > 0 {
		ids := make([]int64, 0, len(stageAccums))
		for id := range stageAccums {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		var acc []any
		for _, id := range ids {
			a := stageAccums[id]
			acc = append(acc, obj{"ID", a.id, "Name", a.name, "Value", fmt.Sprint(a.value), "Internal", true,
				"Count Failed Values", true, "Metadata", "sql"})
		}
		info = append(info, "Accumulables", acc)
	}
	if len(s.plugin) > 0 {
		var acc []any
		for i, a := range s.plugin {
			acc = append(acc, obj{"ID", 9000 + i, "Name", a[0], "Value", a[1], "Internal", false,
				"Count Failed Values", true})
		}
		info = append(info, "Accumulables", acc)
	}
	f.emit(obj{"Event", "SparkListenerStageCompleted", "Stage Info", info})
	return end
}

func (t *task) metrics() obj {
	run := t.run
	if run == 0 {
		run = max(t.dur-5, 0)
	}
	m := obj{"Executor Deserialize Time", 2, "Executor Run Time", run, "Result Size", max(t.resultSize, 1500)}
	opt := func(k string, v int64) {
		if v != 0 {
			m = append(m, k, v)
		}
	}
	opt("JVM GC Time", t.gc)
	opt("Memory Bytes Spilled", t.memSpill)
	opt("Disk Bytes Spilled", t.diskSpill)
	if t.shRead != 0 || t.fetchWait != 0 {
		m = append(m, "Shuffle Read Metrics", obj{"Remote Blocks Fetched", 8, "Local Blocks Fetched", 2,
			"Fetch Wait Time", t.fetchWait, "Remote Bytes Read", t.shRead * 4 / 5, "Local Bytes Read", t.shRead - t.shRead*4/5,
			"Total Records Read", t.shRead / 100})
	}
	if t.shWrite != 0 {
		m = append(m, "Shuffle Write Metrics", obj{"Shuffle Bytes Written", t.shWrite, "Shuffle Write Time", t.shWriteNs,
			"Shuffle Records Written", t.shWrite / 100})
	}
	if t.inBytes != 0 {
		m = append(m, "Input Metrics", obj{"Bytes Read", t.inBytes, "Records Read", t.inBytes / 100})
	}
	if t.outBytes != 0 || t.outRecs != 0 {
		m = append(m, "Output Metrics", obj{"Bytes Written", t.outBytes, "Records Written", t.outRecs})
	}
	return m
}

// plan is a SQL physical plan node of a fixture.
type plan struct {
	name     string
	metrics  []accum // id, name; value unused
	children []plan
}

func (p plan) json() obj {
	ms := []any{}
	for _, m := range p.metrics {
		typ := "sum"
		switch {
		case strings.Contains(m.name, "time"):
			typ = "timing"
		case strings.Contains(m.name, "size") || strings.Contains(m.name, "output") && !strings.Contains(m.name, "rows"):
			typ = "size"
		}
		ms = append(ms, obj{"name", m.name, "accumulatorId", m.id, "metricType", typ})
	}
	cs := []any{}
	for _, c := range p.children {
		cs = append(cs, c.json())
	}
	return obj{"nodeName", p.name, "simpleString", p.name, "children", cs, "metadata", obj{}, "metrics", ms}
}

func (f *fx) sqlStart(id int64, at int64, desc string, p plan) {
	f.emit(obj{"Event", "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart", "executionId", id,
		"description", desc, "details", "", "physicalPlanDescription", "== Physical Plan ==\n" + p.name,
		"sparkPlanInfo", p.json(), "time", t0 + at, "modifiedConfigs", obj{}})
}

func (f *fx) sqlEnd(id int64, at int64) {
	f.emit(obj{"Event", "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd", "executionId", id,
		"time", t0 + at})
}

func (f *fx) driverAccums(sqlID int64, updates ...[2]int64) {
	var u []any
	for _, x := range updates {
		u = append(u, []int64{x[0], x[1]})
	}
	f.emit(obj{"Event", "org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates", "executionId", sqlID,
		"accumUpdates", u})
}

// uniform returns n successful tasks of dur ms spread round-robin over
// executors ("1".."k" on hosts "host-1".."host-k"), each starting when its
// slot frees on cores slots per executor.
func uniform(n int, dur int64, execs, cores int, mod func(i int, t *task)) []task {
	out := make([]task, 0, n)
	slots := execs * cores
	for i := 0; i < n; i++ {
		e := i%execs + 1
		t := task{exec: fmt.Sprint(e), host: fmt.Sprintf("host-%d", e), index: i,
			launch: int64(i/slots) * (dur + 10), dur: dur}
		if mod != nil {
			mod(i, &t)
		}
		out = append(out, t)
	}
	return out
}

// executors adds k executors of cores cores at t0+at.
func (f *fx) executors(k, cores int, at int64) {
	for e := 1; e <= k; e++ {
		f.executor(fmt.Sprint(e), fmt.Sprintf("host-%d", e), cores, at)
	}
}

// batch is one micro-batch of a fixture streaming query: it starts at ms
// after t0, runs dur ms and reads rows.
type batch struct {
	start, dur, rows, stateRows int64
}

// query writes a Structured Streaming query run as Spark's
// StreamingQueryListener events: started at its first batch's start, one
// progress report per batch (Spark's ISO timestamps and keys, one source,
// one stateful operator), terminated after the last batch.
func (f *fx) query(id, name string, batches []batch) {
	iso := func(at int64) string { return time.UnixMilli(t0 + at).UTC().Format("2006-01-02T15:04:05.000Z") }
	const prefix = "org.apache.spark.sql.streaming.StreamingQueryListener$"
	runID := id + "-run"
	f.emit(obj{"Event", prefix + "QueryStartedEvent", "id", id, "runId", runID, "name", name,
		"timestamp", iso(batches[0].start), "jobTags", []string{}})
	for i, b := range batches {
		in := 0.0
		if i > 0 {
			in = float64(b.rows) * 1000 / float64(b.start-batches[i-1].start)
		}
		proc := float64(b.rows) * 1000 / float64(b.dur)
		f.emit(obj{"Event", prefix + "QueryProgressEvent", "progress", obj{"id", id, "runId", runID, "name", name,
			"timestamp", iso(b.start), "batchId", i, "batchDuration", b.dur,
			"durationMs", obj{"addBatch", b.dur - 50, "triggerExecution", b.dur},
			"stateOperators", []obj{{"operatorName", "stateStoreSave", "numRowsTotal", b.stateRows, "memoryUsedBytes", 64 * b.stateRows}},
			"sources", []obj{{"description", "RateStreamV2[rowsPerSecond=2500]", "numInputRows", b.rows,
				"inputRowsPerSecond", in, "processedRowsPerSecond", proc}},
			"sink", obj{"description", "MemorySink", "numOutputRows", b.rows}}})
	}
	f.emit(obj{"Event", prefix + "QueryTerminatedEvent", "id", id, "runId", runID, "exception", nil})
}

package web

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/units"
)

// StageExecutor is one row of a stage's per-executor summary.
type StageExecutor struct {
	ID                             string
	TaskTime                       int64
	Succeeded, Failed, Killed      int
	Input, ShuffleRead, ShuffleOut int64
	SpillMemory, SpillDisk         int64
}

// QuantileRow is one metric of a stage's task quantiles table; sizes
// have their record counts beside them, as Spark's stage page shows
// "Size / Records".
type QuantileRow struct {
	Metric  string
	Unit    string // "ms" or "bytes"
	Values  historyapi.Dist
	Records historyapi.Dist // nil when the metric has none
}

// nanosToMs turns the API's shuffle write times (nanoseconds, as Spark
// records them) into the milliseconds Spark's stage page shows.
func nanosToMs(ns historyapi.Dist) historyapi.Dist {
	ms := make(historyapi.Dist, len(ns))
	for i, v := range ns {
		ms[i] = v / 1e6
	}
	return ms
}

// taskSorts are the task list orders the stage page offers: the History
// Server API's sortBy values.
var taskSorts = []struct{ Key, Label string }{{"id", "task id"}, {"-runtime", "longest first"}, {"runtime", "shortest first"}}

// taskPage is the task list's default page size; ?length= chooses
// another, up to maxTaskPage.
const taskPage, maxTaskPage = 100, 1000

// stagePath reads the stage id and attempt of a /stages/{stage}/{attempt} path.
func stagePath(r *http.Request) (stage, attempt int, ok bool) {
	stage, err1 := strconv.Atoi(r.PathValue("stage"))
	attempt, err2 := strconv.Atoi(r.PathValue("attempt"))
	return stage, attempt, err1 == nil && err2 == nil
}

// stagePage shows one stage attempt: its totals, the task quantiles
// table, the per-executor summary and the task list, sorted and paged by
// the server.
func (s *Pages) stagePage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	sid, att, ok := stagePath(r)
	if !ok {
		s.errorPage(w, http.StatusNotFound, "Unknown stage", "A stage is /apps/ID/stages/STAGE/ATTEMPT.")
		return
	}
	sa, err := d.stage(sid, att)
	if err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Unknown stage", err.Error())
		return
	}
	// The executor summaries come with details, and so would every task:
	// asking for the tasks of status UNKNOWN (which no task has) keeps the
	// tasks out; the task list is paged below.
	st := d.api.Stage(d.attempt, sa, historyapi.StageOptions{Details: true, TaskStatus: map[string]bool{"UNKNOWN": true}})
	var execs []StageExecutor
	for _, e := range st.ExecutorSummary {
		m := &e.Metrics
		execs = append(execs, StageExecutor{ID: e.ExecutorID, TaskTime: e.TaskTime, Succeeded: e.SucceededTasks, Failed: e.FailedTasks,
			Killed: e.KilledTasks, Input: m.InputBytesRead, ShuffleRead: m.ShuffleReadBytes(), ShuffleOut: m.ShuffleWrite.BytesWritten,
			SpillMemory: m.MemoryBytesSpilled, SpillDisk: m.DiskBytesSpilled})
	}
	sort.SliceStable(execs, func(i, j int) bool { return execs[i].TaskTime > execs[j].TaskTime })

	var rows []QuantileRow
	qs := historyapi.TaskSummary(d.attempt, sa, []float64{0, 0.25, 0.5, 0.75, 1})
	if qs != nil {
		sr, sw := &qs.ShuffleReadMetrics, &qs.ShuffleWriteMetrics
		for _, q := range []QuantileRow{
			{"Duration", "ms", qs.Duration, nil}, {"Run time", "ms", qs.ExecutorRunTime, nil}, {"GC time", "ms", qs.JvmGcTime, nil},
			{"Scheduler delay", "ms", qs.SchedulerDelay, nil}, {"Deserialization", "ms", qs.ExecutorDeserializeTime, nil},
			{"Result serialization", "ms", qs.ResultSerializationTime, nil}, {"Getting result", "ms", qs.GettingResultTime, nil},
			{"Peak execution memory", "bytes", qs.PeakExecutionMemory, nil},
			{"Input", "bytes", qs.InputMetrics.BytesRead, qs.InputMetrics.RecordsRead},
			{"Shuffle read", "bytes", sr.ReadBytes, sr.ReadRecords}, {"Shuffle remote reads", "bytes", sr.RemoteBytesRead, nil},
			{"Shuffle fetch wait", "ms", sr.FetchWaitTime, nil},
			{"Shuffle write", "bytes", sw.WriteBytes, sw.WriteRecords}, {"Shuffle write time", "ms", nanosToMs(sw.WriteTime), nil},
			{"Output", "bytes", qs.OutputMetrics.BytesWritten, qs.OutputMetrics.RecordsWritten},
			{"Spill (memory)", "bytes", qs.MemoryBytesSpilled, nil}, {"Spill (disk)", "bytes", qs.DiskBytesSpilled, nil},
		} {
			// A metric without a value at every quantile (the History
			// Server writes "NaN") has no row.
			if !historyapi.Dist(q.Values).Complete() || !historyapi.Dist(q.Records).Complete() {
				continue
			}
			if len(q.Records) != len(q.Values) {
				q.Records = nil
			}
			if len(q.Values) == len(qs.Quantiles) && q.Values[len(q.Values)-1] > 0 {
				rows = append(rows, q)
			}
		}
	}

	q := r.URL.Query()
	sortBy := q.Get("sort")
	if sortBy == "" {
		sortBy = "id"
	}
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(offset, 0)
	length, err := strconv.Atoi(q.Get("length"))
	if err != nil || length <= 0 {
		length = taskPage
	}
	length = min(length, maxTaskPage)
	tasks, err := d.api.TaskList(d.attempt, sa, historyapi.TaskListQuery{Offset: offset, Length: length, SortBy: sortBy})
	if err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the tasks", err.Error())
		return
	}
	total := st.NumCompleteTasks + st.NumFailedTasks + st.NumKilledTasks + st.NumActiveTasks
	page := func(off int) string {
		v := url.Values{"sort": {sortBy}, "offset": {strconv.Itoa(off)}}
		if length != taskPage {
			v.Set("length", strconv.Itoa(length))
		}
		if sum.AttemptID != "" {
			v.Set("attempt", sum.AttemptID)
		}
		return "?" + v.Encode()
	}
	var charts *stageCharts
	var attempts []int // every attempt of this stage, for links
	charts = newStageCharts(sa)
	for _, x := range d.attempt.Stages {
		if x.StageID == sid {
			attempts = append(attempts, x.AttemptID)
		}
	}
	sort.Ints(attempts)
	data := map[string]any{"Title": fmt.Sprintf("Stage %d.%d", sid, att), "Live": sum.Status == "running", "Charts": charts, "Attempts": attempts,
		"Sum": sum, "Stage": st, "Executors": execs, "Quantiles": rows, "QuantileHeads": quantileHeads(qs),
		"Tasks": tasks, "Sort": sortBy, "Sorts": taskSorts, "Offset": offset, "Total": total, "Page": length,
		"Short": units.ShortName(st.Name, 80)}
	if offset > 0 {
		data["Prev"] = page(max(offset-length, 0))
	}
	if len(tasks) == length && offset+length < total {
		data["Next"] = page(offset + length)
	}
	s.render(w, http.StatusOK, "stage.html", data)
}

// quantileHeads are the quantiles of a task summary's columns (none
// without a summary).
func quantileHeads(qs *historyapi.TaskMetricDistributions) []float64 {
	if qs == nil {
		return nil
	}
	return qs.Quantiles
}

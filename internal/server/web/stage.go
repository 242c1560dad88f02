package web

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
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
	execs := stageExecutors(st)
	qs := historyapi.TaskSummary(d.attempt, sa, []float64{0, 0.25, 0.5, 0.75, 1})
	pg := readTaskPaging(r.URL.Query())
	tasks, err := d.api.TaskList(d.attempt, sa, historyapi.TaskListQuery{Offset: pg.offset, Length: pg.length, SortBy: pg.sort})
	if err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the tasks", err.Error())
		return
	}
	total := st.NumCompleteTasks + st.NumFailedTasks + st.NumKilledTasks + st.NumActiveTasks
	data := map[string]any{"Memory": s.stageMemoryOf(sum.ID, sa, execs),
		"Title": fmt.Sprintf("Stage %d.%d", sid, att), "Live": sum.Status == "running",
		"Charts": newStageCharts(sa), "Attempts": stageAttempts(d.attempt, sid),
		"Sum": sum, "Stage": st, "Executors": execs, "Quantiles": quantileRows(qs), "QuantileHeads": quantileHeads(qs),
		"Tasks": tasks, "Sort": pg.sort, "Sorts": taskSorts, "Offset": pg.offset, "Total": total, "Page": pg.length,
		"Short": units.ShortName(st.Name, 80), "Flame": s.stageFlame(sum.ID, sid)}
	if pg.offset > 0 {
		data["Prev"] = pg.link(max(pg.offset-pg.length, 0), sum.AttemptID)
	}
	if len(tasks) == pg.length && pg.offset+pg.length < total {
		data["Next"] = pg.link(pg.offset+pg.length, sum.AttemptID)
	}
	s.render(w, http.StatusOK, "stage.html", data)
}

// stageMemoryOf is the memory table of a stage attempt that was
// submitted: its executors' samples from its submission to its end (to
// now while it runs).
func (s *Pages) stageMemoryOf(appID string, sa *model.StageAttempt, execs []StageExecutor) []StageMemory {
	if sa.SubmissionTime == model.NoTime || len(execs) == 0 {
		return nil
	}
	ids := make([]string, len(execs))
	for i, e := range execs {
		ids[i] = e.ID
	}
	end := sa.CompletionTime
	if sa.Status == model.StageActive || end == model.NoTime {
		end = -1
	}
	return stageMemory(s.memorySamples(appID), sa.SubmissionTime, end, ids)
}

// stageExecutors is a stage's per-executor summary, the executors that
// spent the most task time first.
func stageExecutors(st *historyapi.StageData) []StageExecutor {
	var execs []StageExecutor
	for _, e := range st.ExecutorSummary {
		m := &e.Metrics
		execs = append(execs, StageExecutor{ID: e.ExecutorID, TaskTime: e.TaskTime, Succeeded: e.SucceededTasks, Failed: e.FailedTasks,
			Killed: e.KilledTasks, Input: m.InputBytesRead, ShuffleRead: m.ShuffleReadBytes(), ShuffleOut: m.ShuffleWrite.BytesWritten,
			SpillMemory: m.MemoryBytesSpilled, SpillDisk: m.DiskBytesSpilled})
	}
	sort.SliceStable(execs, func(i, j int) bool { return execs[i].TaskTime > execs[j].TaskTime })
	return execs
}

// quantileRows is the task quantiles table of a stage's task summary
// (none without one): a row per metric that has a value at every
// quantile and is not zero throughout.
func quantileRows(qs *historyapi.TaskMetricDistributions) []QuantileRow {
	if qs == nil {
		return nil
	}
	sr, sw := &qs.ShuffleReadMetrics, &qs.ShuffleWriteMetrics
	var rows []QuantileRow
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
	return rows
}

// taskPaging is the task list's order and page, from the query: ?sort=
// (a History Server sortBy, default by id), ?offset= and ?length=.
type taskPaging struct {
	sort           string
	offset, length int
}

func readTaskPaging(q url.Values) taskPaging {
	p := taskPaging{sort: q.Get("sort")}
	if p.sort == "" {
		p.sort = "id"
	}
	p.offset, _ = strconv.Atoi(q.Get("offset"))
	p.offset = max(p.offset, 0)
	length, err := strconv.Atoi(q.Get("length"))
	if err != nil || length <= 0 {
		length = taskPage
	}
	p.length = min(length, maxTaskPage)
	return p
}

// link is the query of the page at offset off in the same order and
// length, of the application attempt attemptID ("" for the only one).
func (p taskPaging) link(off int, attemptID string) string {
	v := url.Values{"sort": {p.sort}, "offset": {strconv.Itoa(off)}}
	if p.length != taskPage {
		v.Set("length", strconv.Itoa(p.length))
	}
	if attemptID != "" {
		v.Set("attempt", attemptID)
	}
	return "?" + v.Encode()
}

// stageAttempts are the attempt ids of stage sid in a, in order, for the
// page's links to each.
func stageAttempts(a *model.Attempt, sid int) []int {
	var attempts []int
	for _, x := range a.Stages {
		if x.StageID == sid {
			attempts = append(attempts, x.AttemptID)
		}
	}
	sort.Ints(attempts)
	return attempts
}

// quantileHeads are the quantiles of a task summary's columns (none
// without a summary).
func quantileHeads(qs *historyapi.TaskMetricDistributions) []float64 {
	if qs == nil {
		return nil
	}
	return qs.Quantiles
}

package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/units"
)

// stageDoc is the part of the API's StageData a stage page shows.
type stageDoc struct {
	Status              string `json:"status"`
	StageID             int    `json:"stageId"`
	AttemptID           int    `json:"attemptId"`
	Name                string `json:"name"`
	Details             string `json:"details"`
	NumTasks            int    `json:"numTasks"`
	NumActiveTasks      int    `json:"numActiveTasks"`
	NumCompleteTasks    int    `json:"numCompleteTasks"`
	NumFailedTasks      int    `json:"numFailedTasks"`
	NumKilledTasks      int    `json:"numKilledTasks"`
	SubmissionTime      string `json:"submissionTime"`
	CompletionTime      string `json:"completionTime"`
	FailureReason       string `json:"failureReason"`
	ExecutorRunTime     int64  `json:"executorRunTime"`
	JvmGcTime           int64  `json:"jvmGcTime"`
	InputBytes          int64  `json:"inputBytes"`
	OutputBytes         int64  `json:"outputBytes"`
	ShuffleReadBytes    int64  `json:"shuffleReadBytes"`
	ShuffleWriteBytes   int64  `json:"shuffleWriteBytes"`
	MemoryBytesSpilled  int64  `json:"memoryBytesSpilled"`
	DiskBytesSpilled    int64  `json:"diskBytesSpilled"`
	PeakExecutionMemory int64  `json:"peakExecutionMemory"`
	ExecutorSummary     map[string]struct {
		TaskTime           int64 `json:"taskTime"`
		FailedTasks        int   `json:"failedTasks"`
		SucceededTasks     int   `json:"succeededTasks"`
		KilledTasks        int   `json:"killedTasks"`
		InputBytes         int64 `json:"inputBytes"`
		ShuffleRead        int64 `json:"shuffleRead"`
		ShuffleWrite       int64 `json:"shuffleWrite"`
		MemoryBytesSpilled int64 `json:"memoryBytesSpilled"`
		DiskBytesSpilled   int64 `json:"diskBytesSpilled"`
	} `json:"executorSummary"`
}

// StageExecutor is one row of a stage's per-executor summary.
type StageExecutor struct {
	ID                             string
	TaskTime                       int64
	Succeeded, Failed, Killed      int
	Input, ShuffleRead, ShuffleOut int64
	SpillMemory, SpillDisk         int64
}

// taskSummaryDoc is the API's task metric distributions.
type taskSummaryDoc struct {
	Quantiles               []float64 `json:"quantiles"`
	Duration                []float64 `json:"duration"`
	ExecutorRunTime         []float64 `json:"executorRunTime"`
	JvmGcTime               []float64 `json:"jvmGcTime"`
	SchedulerDelay          []float64 `json:"schedulerDelay"`
	GettingResultTime       []float64 `json:"gettingResultTime"`
	ExecutorDeserializeTime []float64 `json:"executorDeserializeTime"`
	ResultSerializationTime []float64 `json:"resultSerializationTime"`
	PeakExecutionMemory     []float64 `json:"peakExecutionMemory"`
	MemoryBytesSpilled      []float64 `json:"memoryBytesSpilled"`
	DiskBytesSpilled        []float64 `json:"diskBytesSpilled"`
	InputMetrics            struct{ BytesRead, RecordsRead []float64 }
	ShuffleReadMetrics      struct{ ReadBytes, ReadRecords, FetchWaitTime, RemoteBytesRead []float64 }
	ShuffleWriteMetrics     struct{ WriteBytes, WriteRecords, WriteTime []float64 }
	OutputMetrics           struct{ BytesWritten, RecordsWritten []float64 }
}

// QuantileRow is one metric of a stage's task quantiles table; sizes
// have their record counts beside them, as Spark's stage page shows
// "Size / Records".
type QuantileRow struct {
	Metric  string
	Unit    string // "ms" or "bytes"
	Values  []float64
	Records []float64 // nil when the metric has none
}

// nanosToMs turns the API's shuffle write times (nanoseconds, as Spark
// records them) into the milliseconds Spark's stage page shows.
func nanosToMs(ns []float64) []float64 {
	ms := make([]float64, len(ns))
	for i, v := range ns {
		ms[i] = v / 1e6
	}
	return ms
}

// taskDoc is the part of the API's TaskData a task list shows.
type taskDoc struct {
	TaskID       int64  `json:"taskId"`
	Index        int    `json:"index"`
	Attempt      int    `json:"attempt"`
	LaunchTime   string `json:"launchTime"`
	Duration     int64  `json:"duration"`
	ExecutorID   string `json:"executorId"`
	Host         string `json:"host"`
	Status       string `json:"status"`
	Locality     string `json:"taskLocality"`
	Speculative  bool   `json:"speculative"`
	ErrorMessage string `json:"errorMessage"`
	TaskMetrics  *struct {
		ExecutorRunTime    int64 `json:"executorRunTime"`
		JvmGcTime          int64 `json:"jvmGcTime"`
		MemoryBytesSpilled int64 `json:"memoryBytesSpilled"`
		DiskBytesSpilled   int64 `json:"diskBytesSpilled"`
		InputMetrics       struct {
			BytesRead int64 `json:"bytesRead"`
		} `json:"inputMetrics"`
		ShuffleReadMetrics struct {
			RemoteBytesRead int64 `json:"remoteBytesRead"`
			LocalBytesRead  int64 `json:"localBytesRead"`
		} `json:"shuffleReadMetrics"`
		ShuffleWriteMetrics struct {
			BytesWritten int64 `json:"bytesWritten"`
		} `json:"shuffleWriteMetrics"`
	} `json:"taskMetrics"`
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
	path := fmt.Sprintf("/stages/%d/%d", sid, att)
	// The executorSummary comes with details=true, and so would every task:
	// asking for the tasks of status UNKNOWN (which no task has) keeps the
	// tasks out; the task list is paged below.
	var st stageDoc
	if err := d.get(path+"?details=true&taskStatus=UNKNOWN", &st); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Unknown stage", err.Error())
		return
	}
	var execs []StageExecutor
	for id, e := range st.ExecutorSummary {
		execs = append(execs, StageExecutor{ID: id, TaskTime: e.TaskTime, Succeeded: e.SucceededTasks, Failed: e.FailedTasks,
			Killed: e.KilledTasks, Input: e.InputBytes, ShuffleRead: e.ShuffleRead, ShuffleOut: e.ShuffleWrite,
			SpillMemory: e.MemoryBytesSpilled, SpillDisk: e.DiskBytesSpilled})
	}
	sort.Slice(execs, func(i, j int) bool { return execs[i].TaskTime > execs[j].TaskTime })

	var qs taskSummaryDoc
	var rows []QuantileRow
	if err := d.get(path+"/taskSummary?quantiles=0,0.25,0.5,0.75,1", &qs); err == nil {
		sr, sw := qs.ShuffleReadMetrics, qs.ShuffleWriteMetrics
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
	var tasks []taskDoc
	tl := fmt.Sprintf("%s/taskList?offset=%d&length=%d&sortBy=%s", path, offset, length, url.QueryEscape(sortBy))
	if err := d.get(tl, &tasks); err != nil && !errors.Is(err, context.Canceled) {
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
	if d.attempt != nil {
		if sa := d.attempt.Stage(sid, att); sa != nil {
			charts = newStageCharts(sa)
		}
		for _, x := range d.attempt.Stages {
			if x.StageID == sid {
				attempts = append(attempts, x.AttemptID)
			}
		}
		sort.Ints(attempts)
	}
	data := map[string]any{"Title": fmt.Sprintf("Stage %d.%d", sid, att), "Live": sum.Status == "running", "Charts": charts, "Attempts": attempts,
		"Sum": sum, "Stage": st, "Executors": execs, "Quantiles": rows, "QuantileHeads": qs.Quantiles,
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

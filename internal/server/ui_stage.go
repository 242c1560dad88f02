package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/units"
)

// The drill-down pages (jobs, stage, environment) show what the History
// Server API answers for the application, the same documents /api/v1
// serves, so a page and the API never disagree.

// apiDocs answers History Server API paths for one application's newest
// attempts, decoding each answer into a value.
type apiDocs struct {
	api     *historyapi.API
	base    string         // "/api/v1/applications/ID" (with "/ATTEMPT" when it has attempt ids)
	attempt *model.Attempt // the attempt shown, for what the API has no document of (charts)
}

func (s *Server) apiDocs(ctx context.Context, id, attempt string) (*apiDocs, func(), error) {
	app, release, err := s.fullApp(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	api := historyapi.New([]*model.App{app})
	api.Now = func() int64 { return s.cfg.Now().UnixMilli() }
	base := "/api/v1/applications/" + url.PathEscape(id)
	if attempt == "" && len(app.Attempts) > 0 {
		attempt = app.Attempts[0].AttemptID // the newest, as the History Server orders them
	}
	if attempt != "" {
		base += "/" + url.PathEscape(attempt)
	}
	d := &apiDocs{api: api, base: base}
	for _, a := range app.Attempts {
		if a.AttemptID == attempt {
			d.attempt = a
		}
	}
	return d, release, nil
}

// get decodes the answer to base+path into v.
func (d *apiDocs) get(path string, v any) error {
	doc, err := d.api.Get(d.base + path)
	if err != nil {
		return err
	}
	return json.Unmarshal(historyapi.Marshal(doc), v)
}

// docsPage opens the API documents of the application a page is about, or
// writes the error page.
func (s *Server) docsPage(w http.ResponseWriter, r *http.Request) (*apiDocs, AppSummary, func(), bool) {
	id := r.PathValue("id")
	sum, ok := pick(s.attemptsOf(id), r.URL.Query().Get("attempt"))
	if !ok {
		s.errorPage(w, http.StatusNotFound, "Unknown application", "No application attempt "+id+" is indexed.")
		return nil, sum, nil, false
	}
	d, release, err := s.apiDocs(r.Context(), id, sum.AttemptID)
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "Cannot read the application", err.Error())
		return nil, sum, nil, false
	}
	return d, sum, release, true
}

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
func (s *Server) stagePage(w http.ResponseWriter, r *http.Request) {
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

// jobDoc is the part of the API's JobData the jobs page shows.
type jobDoc struct {
	JobID             int    `json:"jobId"`
	Name              string `json:"name"`
	Description       string `json:"description"`
	SubmissionTime    string `json:"submissionTime"`
	CompletionTime    string `json:"completionTime"`
	StageIDs          []int  `json:"stageIds"`
	Status            string `json:"status"`
	NumTasks          int    `json:"numTasks"`
	NumCompletedTasks int    `json:"numCompletedTasks"`
	NumFailedTasks    int    `json:"numFailedTasks"`
	NumKilledTasks    int    `json:"numKilledTasks"`
	NumSkippedStages  int    `json:"numSkippedStages"`
	NumFailedStages   int    `json:"numFailedStages"`
	// Stages are the job's stage attempts that ran, for links.
	Stages []stageRef `json:"-"`
}

type stageRef struct {
	StageID   int    `json:"stageId"`
	AttemptID int    `json:"attemptId"`
	Name      string `json:"name"`
	Status    string `json:"status"`
}

// jobsPage lists the application's jobs, newest first as Spark's UI does,
// each with links to the stage attempts it ran.
func (s *Server) jobsPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	var jobs []jobDoc
	var stages []stageRef
	if err := d.get("/jobs", &jobs); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the jobs", err.Error())
		return
	}
	if err := d.get("/stages", &stages); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the stages", err.Error())
		return
	}
	attachStages(jobs, stages)
	s.render(w, http.StatusOK, "jobs.html", map[string]any{"Title": "Jobs · " + sum.Name, "Live": sum.Status == "running",
		"Sum": sum, "Jobs": jobs})
}

// attachStages gives each job the attempts of its stages that ran (a
// skipped stage has none), in stage and attempt order.
func attachStages(jobs []jobDoc, stages []stageRef) {
	byID := map[int][]stageRef{}
	for _, st := range stages {
		byID[st.StageID] = append(byID[st.StageID], st)
	}
	for i := range jobs {
		for _, id := range jobs[i].StageIDs {
			jobs[i].Stages = append(jobs[i].Stages, byID[id]...)
		}
		sort.Slice(jobs[i].Stages, func(a, b int) bool {
			x, y := jobs[i].Stages[a], jobs[i].Stages[b]
			return x.StageID < y.StageID || x.StageID == y.StageID && x.AttemptID < y.AttemptID
		})
	}
}

// environmentDoc is the API's ApplicationEnvironmentInfo, as redacted.
type environmentDoc struct {
	Runtime struct {
		JavaVersion  string `json:"javaVersion"`
		JavaHome     string `json:"javaHome"`
		ScalaVersion string `json:"scalaVersion"`
	} `json:"runtime"`
	SparkProperties  [][2]string `json:"sparkProperties"`
	HadoopProperties [][2]string `json:"hadoopProperties"`
	SystemProperties [][2]string `json:"systemProperties"`
	MetricsProps     [][2]string `json:"metricsProperties"`
	ClasspathEntries [][2]string `json:"classpathEntries"`
}

// environmentPage shows the application's configuration as the History
// Server does: values whose key or value matches the redaction rules are
// hidden.
func (s *Server) environmentPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	var env environmentDoc
	if err := d.get("/environment", &env); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot read the environment", err.Error())
		return
	}
	s.render(w, http.StatusOK, "environment.html", map[string]any{"Title": "Environment · " + sum.Name,
		"Live": sum.Status == "running", "Sum": sum, "Env": env, "Sections": []struct {
			ID, Title string
			Rows      [][2]string
		}{{"spark", "Spark properties", env.SparkProperties}, {"hadoop", "Hadoop properties", env.HadoopProperties},
			{"system", "System properties", env.SystemProperties}, {"metrics", "Metrics properties", env.MetricsProps},
			{"classpath", "Classpath entries", env.ClasspathEntries}}})
}

// executorDoc is the part of the API's ExecutorSummary the executors page
// shows.
type executorDoc struct {
	ID                string            `json:"id"`
	HostPort          string            `json:"hostPort"`
	IsActive          bool              `json:"isActive"`
	TotalCores        int               `json:"totalCores"`
	FailedTasks       int               `json:"failedTasks"`
	CompletedTasks    int               `json:"completedTasks"`
	TotalDuration     int64             `json:"totalDuration"`
	TotalGCTime       int64             `json:"totalGCTime"`
	TotalInputBytes   int64             `json:"totalInputBytes"`
	TotalShuffleRead  int64             `json:"totalShuffleRead"`
	TotalShuffleWrite int64             `json:"totalShuffleWrite"`
	MaxMemory         int64             `json:"maxMemory"`
	AddTime           string            `json:"addTime"`
	RemoveTime        string            `json:"removeTime"`
	RemoveReason      string            `json:"removeReason"`
	ExecutorLogs      map[string]string `json:"executorLogs"`
	Peak              map[string]int64  `json:"peakMemoryMetrics"`
	// From the analysis: why a lost executor ended.
	LossCause string `json:"-"`
	ExitCode  *int   `json:"-"`
}

// LogLinks are the executor's log links in name order.
func (e executorDoc) LogLinks() [][2]string {
	var out [][2]string
	for name, u := range e.ExecutorLogs {
		out = append(out, [2]string{name, u})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// GCShare is GC time over task time, in percent.
func (e executorDoc) GCShare() float64 {
	if e.TotalDuration <= 0 {
		return 0
	}
	return float64(e.TotalGCTime) * 100 / float64(e.TotalDuration)
}

// executorsPage lists every executor, active and dead, with its tasks,
// memory peaks, logs and — for a lost one — why it ended.
func (s *Server) executorsPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	var execs []executorDoc
	if err := d.get("/allexecutors", &execs); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the executors", err.Error())
		return
	}
	// The analysis says why each executor ended (exit codes, OOM kills).
	if b, _, err := s.report(r, sum.ID, sum.AttemptID); err == nil {
		var rep struct {
			ExecutorDetails []reportv1.ExecutorDetail `json:"executorDetails"`
		}
		if json.Unmarshal(b, &rep) == nil {
			byID := map[string]reportv1.ExecutorDetail{}
			for _, x := range rep.ExecutorDetails {
				byID[x.ID] = x
			}
			for i := range execs {
				if x, ok := byID[execs[i].ID]; ok {
					execs[i].LossCause, execs[i].ExitCode = x.LossCause, x.ExitCode
				}
			}
		}
	}
	// Memory over time: the app page's chart (executor peaks at stage ends,
	// or the agent's samples when it sent some).
	var memory *memChart
	if v, err := s.appView(r.Context(), sum); err == nil {
		v.withSamples(s.memorySamples(sum.ID))
		memory = v.Memory
	}
	s.render(w, http.StatusOK, "executors.html", map[string]any{"Title": "Executors · " + sum.Name,
		"Live": sum.Status == "running", "Sum": sum, "Executors": execs, "Memory": memory})
}

// jobStage is one stage attempt of a job, as the job page lists it.
type jobStage struct {
	StageID               int    `json:"stageId"`
	AttemptID             int    `json:"attemptId"`
	Name                  string `json:"name"`
	Status                string `json:"status"`
	NumTasks              int    `json:"numTasks"`
	NumCompleteTasks      int    `json:"numCompleteTasks"`
	NumFailedTasks        int    `json:"numFailedTasks"`
	SubmissionTime        string `json:"submissionTime"`
	FirstTaskLaunchedTime string `json:"firstTaskLaunchedTime"`
	CompletionTime        string `json:"completionTime"`
	ExecutorRunTime       int64  `json:"executorRunTime"`
	InputBytes            int64  `json:"inputBytes"`
	ShuffleReadBytes      int64  `json:"shuffleReadBytes"`
	ShuffleWriteBytes     int64  `json:"shuffleWriteBytes"`
	DiskBytesSpilled      int64  `json:"diskBytesSpilled"`
	FailureReason         string `json:"failureReason"`
}

// DurationMs is the stage attempt's duration as Spark's UI and `sparkdx
// analyze` define it — first task launch to completion (submission to
// completion when no task ran) —, -1 while it runs.
func (s jobStage) DurationMs() int64 {
	start := s.FirstTaskLaunchedTime
	if start == "" {
		start = s.SubmissionTime
	}
	from, err1 := time.Parse(sparkDate, start)
	to, err2 := time.Parse(sparkDate, s.CompletionTime)
	if err1 != nil || err2 != nil {
		return -1
	}
	return to.Sub(from).Milliseconds()
}

// sparkDate is how the History Server API writes times.
const sparkDate = "2006-01-02T15:04:05.000GMT"

// jobPage shows one job and the stage attempts it ran; stages it skipped
// (their output reused) are counted.
func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	id, err := strconv.Atoi(r.PathValue("job"))
	if err != nil {
		s.errorPage(w, http.StatusNotFound, "Unknown job", "A job is /apps/ID/jobs/JOB.")
		return
	}
	var job jobDoc
	if err := d.get(fmt.Sprintf("/jobs/%d", id), &job); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Unknown job", err.Error())
		return
	}
	var all []jobStage
	if err := d.get("/stages?details=false", &all); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the stages", err.Error())
		return
	}
	mine := map[int]bool{}
	for _, sid := range job.StageIDs {
		mine[sid] = true
	}
	var stages []jobStage
	for _, st := range all {
		if mine[st.StageID] {
			stages = append(stages, st)
		}
	}
	sort.Slice(stages, func(a, b int) bool {
		x, y := stages[a], stages[b]
		return x.StageID < y.StageID || x.StageID == y.StageID && x.AttemptID < y.AttemptID
	})
	s.render(w, http.StatusOK, "job.html", map[string]any{"Title": fmt.Sprintf("Job %d · %s", id, sum.Name),
		"Live": sum.Status == "running", "Sum": sum, "Job": job, "Stages": stages})
}

// TaskMetricRow is one metric of a task page.
type TaskMetricRow struct {
	Group, Name string
	Value       int64
}

// taskPage shows one task attempt: where and how it ran, every metric
// Spark recorded for it (named as the History Server API names them), the
// executor's peaks while it ran, and its error.
func (s *Server) taskPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	sid, att, ok := stagePath(r)
	tid, err := strconv.ParseInt(r.PathValue("task"), 10, 64)
	var task *model.Task
	if ok && err == nil && d.attempt != nil {
		if st := d.attempt.Stage(sid, att); st != nil {
			for _, t := range st.Tasks {
				if t.TaskID == tid {
					task = t
				}
			}
		}
	}
	if task == nil {
		s.errorPage(w, http.StatusNotFound, "Unknown task", "No task "+r.PathValue("task")+" in stage "+r.PathValue("stage")+"."+r.PathValue("attempt")+".")
		return
	}
	// The task as the API lists it (status, duration, error text).
	var doc []taskDoc
	_ = d.get(fmt.Sprintf("/stages/%d/%d/taskList?offset=%d&length=1", sid, att, taskIndexOf(d.attempt.Stage(sid, att), tid)), &doc)
	var rows []TaskMetricRow
	if task.HasMetrics {
		var walk func(g *model.MetricGroup, group string)
		walk = func(g *model.MetricGroup, group string) {
			for _, f := range g.Fields {
				if f.API != "" {
					rows = append(rows, TaskMetricRow{Group: group, Name: f.API, Value: *f.Of(&task.Metrics)})
				}
			}
			for _, sub := range g.Groups {
				walk(sub, sub.API)
			}
		}
		walk(model.TaskMetricFields(), "")
	}
	var peaks [][2]any
	if task.ExecMetrics != nil {
		names := model.ExecutorMetricNames()
		for i, v := range task.ExecMetrics.Values {
			if v != 0 {
				peaks = append(peaks, [2]any{names[i], v})
			}
		}
	}
	data := map[string]any{"Title": fmt.Sprintf("Task %d", tid), "Live": sum.Status == "running", "Sum": sum,
		"Task": task, "StageID": sid, "StageAttempt": att, "Metrics": rows, "Peaks": peaks}
	if len(doc) == 1 && doc[0].TaskID == tid {
		data["Doc"] = doc[0]
	}
	s.render(w, http.StatusOK, "task.html", data)
}

// taskIndexOf is the position of task id in the stage's task list in the
// API's default order (the stage's).
func taskIndexOf(s *model.StageAttempt, id int64) int {
	for i, t := range s.Tasks {
		if t.TaskID == id {
			return i
		}
	}
	return 0
}

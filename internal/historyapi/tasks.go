package historyapi

import (
	"cmp"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
)

func (api *API) nowMs() int64 {
	if api.Now != nil {
		return api.Now()
	}
	return time.Now().UnixMilli()
}

// taskDuration is the duration the History Server stores for a task: its
// run time when finished, else the time until the log's last update.
func taskDuration(a *model.Attempt, t *model.Task) int64 {
	if t.FinishTime != 0 {
		return model.Span(t.LaunchTime, t.FinishTime)
	}
	if a.LastUpdated > t.LaunchTime {
		return model.Span(t.LaunchTime, a.LastUpdated)
	}
	return 0
}

// gettingResultTime follows AppStatusUtils.gettingResultTime; now is the
// current time for a task still fetching its result.
func gettingResultTime(t *model.Task, duration, now int64) int64 {
	if t.GettingResultTime <= 0 {
		return 0
	}
	if duration > 0 {
		return t.LaunchTime + duration - t.GettingResultTime
	}
	return max(0, now-t.GettingResultTime)
}

// schedulerDelay follows AppStatusUtils.schedulerDelay for a task shown in
// the API: zero until the task finished with metrics.
func schedulerDelay(t *model.Task, duration int64) int64 {
	if t.FinishTime == 0 || !t.HasMetrics || duration <= 0 {
		return 0
	}
	m := t.Metrics()
	return max(0, duration-m.ExecutorRunTime-m.ExecutorDeserializeTime-m.ResultSerializationTime-
		gettingResultTime(t, duration, 0))
}

// TaskData is one task attempt as the History Server's TaskData has it:
// the typed value the task lists answer (written by obj) and serve's
// stage and task pages read.
type TaskData struct {
	TaskID                      int64
	Index, Attempt, PartitionID int
	LaunchTime                  string // the API's date
	ResultFetchStart            string // "" when the result was not fetched
	Duration                    int64  // 0: none written
	ExecutorID, Host, Status    string
	Locality                    string
	Speculative                 bool
	ErrorMessage                string // "" when none
	HasErrorMessage             bool
	// TaskMetrics is nil until the task reported metrics.
	TaskMetrics                       *model.TaskMetrics
	ExecutorLogs                      [][2]string
	SchedulerDelay, GettingResultTime int64

	task    *model.Task
	metrics *model.MetricGroup
}

// Task is task t of attempt a as the History Server shows it.
func (api *API) Task(a *model.Attempt, t *model.Task) TaskData {
	d := taskDuration(a, t)
	td := TaskData{TaskID: t.TaskID, Index: int(t.Index), Attempt: int(t.Attempt), PartitionID: int(t.PartitionID),
		LaunchTime: date(t.LaunchTime), ExecutorID: t.ExecutorID, Host: t.Host, Status: t.Status(),
		Locality: t.Locality, Speculative: t.Speculative, HasErrorMessage: t.HasErrorMessage(),
		SchedulerDelay: schedulerDelay(t, d), GettingResultTime: gettingResultTime(t, d, api.nowMs()),
		task: t, metrics: api.metrics}
	if t.GettingResultTime > 0 {
		td.ResultFetchStart = date(t.GettingResultTime)
	}
	if d > 0 {
		td.Duration = d
	}
	if t.HasErrorMessage() {
		td.ErrorMessage = errorMessage(t)
	}
	if t.HasMetrics {
		m := t.Metrics()
		td.TaskMetrics = &m
	}
	if e := a.Executor(t.ExecutorID); e != nil {
		td.ExecutorLogs = e.Logs
	}
	return td
}

// obj writes the task as Spark's TaskData.
func (td *TaskData) obj() *Obj {
	o := obj().Set("taskId", td.TaskID).Set("index", td.Index).Set("attempt", td.Attempt).
		Set("partitionId", td.PartitionID).Set("launchTime", td.LaunchTime)
	if td.ResultFetchStart != "" {
		o.Set("resultFetchStart", td.ResultFetchStart)
	}
	if td.Duration > 0 {
		o.Set("duration", td.Duration)
	}
	o.Set("executorId", td.ExecutorID).Set("host", td.Host).Set("status", td.Status).
		Set("taskLocality", td.Locality).Set("speculative", td.Speculative).
		Set("accumulatorUpdates", accumulables(td.task.Accumulables(), true))
	if td.HasErrorMessage {
		o.Set("errorMessage", td.ErrorMessage)
	}
	if td.TaskMetrics != nil {
		o.Set("taskMetrics", taskMetrics(td.metrics, td.TaskMetrics))
	}
	o.Set("executorLogs", pairsObj(td.ExecutorLogs)).Set("schedulerDelay", td.SchedulerDelay).
		Set("gettingResultTime", td.GettingResultTime)
	return o
}

// taskMetrics is the REST API's TaskMetrics of m: group g's fields, then
// its nested groups as objects.
func taskMetrics(g *model.MetricGroup, m *model.TaskMetrics) *Obj {
	o := obj()
	for _, f := range apiOrder(g.Fields) {
		if f.API != "" {
			o.Set(f.API, *f.Of(m))
		}
	}
	for _, sub := range g.Groups {
		o.Set(sub.API, taskMetrics(sub, m))
	}
	return o
}

// runTimeKey is the value Spark indexes tasks by for runtime sorting: the
// run time, stored negated (-x-1) for unsuccessful tasks and -1 without metrics.
func runTimeKey(t *model.Task) int64 {
	if !t.HasMetrics {
		return -1
	}
	if !t.Successful() {
		return -t.Metrics().ExecutorRunTime - 1
	}
	return t.Metrics().ExecutorRunTime
}

// keyedTask is a task with its sort key.
type keyedTask struct {
	t   *model.Task
	key int64
}

// TaskListQuery is what a task list asks for: ?offset=, ?length=,
// ?sortBy= (id, runtime, -runtime and Spark's enum names) and ?status=.
type TaskListQuery struct {
	Offset, Length int
	SortBy         string
	Status         map[string]bool // none: all
}

func (api *API) taskList(a *model.Attempt, s *model.StageAttempt, q url.Values) (any, error) {
	offset, err := intParam(q, "offset", 0)
	if err != nil {
		return nil, err
	}
	length, err := lengthParam(q, 20)
	if err != nil {
		return nil, err
	}
	statuses, err := taskStatuses(q["status"])
	if err != nil {
		return nil, err
	}
	tasks, err := api.TaskList(a, s, TaskListQuery{Offset: offset, Length: length, SortBy: q.Get("sortBy"), Status: statuses})
	if err != nil {
		return nil, err
	}
	out := make([]any, len(tasks))
	for i := range tasks {
		out[i] = tasks[i].obj()
	}
	return out, nil
}

// TaskList is one page of stage attempt s's tasks, as
// /stages/{id}/{attempt}/taskList answers it.
func (api *API) TaskList(a *model.Attempt, s *model.StageAttempt, q TaskListQuery) ([]TaskData, error) {
	offset, length, statuses := q.Offset, q.Length, q.Status
	if err := checkPage(length, offset, len(s.Tasks)); err != nil {
		return nil, err
	}
	tasks := append([]*model.Task(nil), s.Tasks...)
	// TaskSorting.fromString: the short names, else the enum name in any case.
	switch sortBy := strings.ToLower(q.SortBy); sortBy {
	case "", "id":
	case "increasing_runtime", "runtime", "decreasing_runtime", "-runtime":
		desc := sortBy == "decreasing_runtime" || sortBy == "-runtime"
		// Each task's key once: a task's metrics are stored packed, and
		// a comparison that unpacked them would do so O(n log n) times.
		keyed := make([]keyedTask, len(tasks))
		for i, t := range tasks {
			keyed[i] = keyedTask{t, runTimeKey(t)}
		}
		sort.SliceStable(keyed, func(i, j int) bool {
			ki, kj := keyed[i].key, keyed[j].key
			if ki != kj {
				return (ki < kj) != desc
			}
			return (keyed[i].t.TaskID < keyed[j].t.TaskID) != desc
		})
		for i := range keyed {
			tasks[i] = keyed[i].t
		}
	default:
		return nil, notFound("unknown sortBy: %s", sortBy)
	}
	out := []TaskData{}
	skipped := 0
	for _, t := range tasks {
		if len(out) >= length {
			break
		}
		if len(statuses) > 0 && !statuses[t.Status()] {
			continue
		}
		if skipped < offset {
			skipped++
			continue
		}
		out = append(out, api.Task(a, t))
	}
	return out, nil
}

// errorMessage is a failed task's errorMessage as Spark's
// TaskEndReason.toErrorString writes it: the executor-loss and fetch
// failure texts are rendered from their fields here, and only here.
func errorMessage(t *model.Task) string {
	switch {
	case t.Loss() != nil:
		l := t.Loss()
		exec, behavior := cmp.Or(l.ExecutorID, "Unknown"), "unrelated to the running tasks"
		if l.CausedByApp {
			behavior = "caused by one of the running tasks"
		}
		msg := "ExecutorLostFailure (executor " + exec + " exited " + behavior + ")"
		if l.HasReason {
			msg += " Reason: " + l.Reason
		}
		return msg
	case t.Fetch() != nil:
		f := t.Fetch()
		addr := "null"
		if f.HasAddress {
			addr = fmt.Sprintf("BlockManagerId(%s, %s, %d, None)", f.ExecutorID, f.Host, f.Port)
		}
		mapIndex := "Unknown" // logs before Spark 3.0 have no map index
		if f.HasMapIndex {
			mapIndex = strconv.FormatInt(f.MapIndex, 10)
		}
		return fmt.Sprintf("FetchFailed(%s, shuffleId=%d, mapIndex=%s, mapId=%d, reduceId=%d, message=\n%s\n)",
			addr, f.ShuffleID, mapIndex, f.MapID, f.ReduceID, f.Message)
	}
	return t.ErrorMessage()
}

// apiOrder lists a group's fields as the REST API writes them: as the log
// does, but for peakExecutionMemory, which Spark's TaskMetrics and
// StageData declare after the spill sizes.
func apiOrder(fields []model.MetricField) []*model.MetricField {
	out := make([]*model.MetricField, 0, len(fields))
	var peak *model.MetricField
	for i := range fields {
		f := &fields[i]
		switch f.API {
		case "peakExecutionMemory":
			peak = f
			continue
		case "diskBytesSpilled":
			out = append(out, f)
			if peak != nil {
				out = append(out, peak)
				peak = nil
			}
			continue
		}
		out = append(out, f)
	}
	if peak != nil {
		out = append(out, peak)
	}
	return out
}

// eachAPIField calls f on every field of g and its nested groups, depth
// first, in the REST API's order.
func eachAPIField(g *model.MetricGroup, f func(*model.MetricField)) {
	for _, fl := range apiOrder(g.Fields) {
		f(fl)
	}
	for _, sub := range g.Groups {
		eachAPIField(sub, f)
	}
}

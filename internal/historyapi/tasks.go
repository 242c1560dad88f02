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
	m := &t.Metrics
	return max(0, duration-m.ExecutorRunTime-m.ExecutorDeserializeTime-m.ResultSerializationTime-
		gettingResultTime(t, duration, 0))
}

func (api *API) taskData(a *model.Attempt, t *model.Task) *Obj {
	d := taskDuration(a, t)
	o := obj().Set("taskId", t.TaskID).Set("index", t.Index).Set("attempt", t.Attempt).
		Set("partitionId", t.PartitionID).Set("launchTime", date(t.LaunchTime))
	if t.GettingResultTime > 0 {
		o.Set("resultFetchStart", date(t.GettingResultTime))
	}
	if d > 0 {
		o.Set("duration", d)
	}
	o.Set("executorId", t.ExecutorID).Set("host", t.Host).Set("status", t.Status()).
		Set("taskLocality", t.Locality).Set("speculative", t.Speculative).
		Set("accumulatorUpdates", accumulables(t.Accumulables, true))
	if t.HasErrorMessage {
		o.Set("errorMessage", errorMessage(t))
	}
	if t.HasMetrics {
		o.Set("taskMetrics", taskMetrics(api.metrics, &t.Metrics))
	}
	var logs [][2]string
	if e := a.Executor(t.ExecutorID); e != nil {
		logs = e.Logs
	}
	o.Set("executorLogs", pairsObj(logs)).Set("schedulerDelay", schedulerDelay(t, d)).
		Set("gettingResultTime", gettingResultTime(t, d, api.nowMs()))
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
		return -t.Metrics.ExecutorRunTime - 1
	}
	return t.Metrics.ExecutorRunTime
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
	if err := checkPage(length, offset, len(s.Tasks)); err != nil {
		return nil, err
	}
	tasks := append([]*model.Task(nil), s.Tasks...)
	// TaskSorting.fromString: the short names, else the enum name in any case.
	switch sortBy := strings.ToLower(q.Get("sortBy")); sortBy {
	case "", "id":
	case "increasing_runtime", "runtime", "decreasing_runtime", "-runtime":
		desc := sortBy == "decreasing_runtime" || sortBy == "-runtime"
		sort.SliceStable(tasks, func(i, j int) bool {
			ki, kj := runTimeKey(tasks[i]), runTimeKey(tasks[j])
			if ki != kj {
				return (ki < kj) != desc
			}
			return (tasks[i].TaskID < tasks[j].TaskID) != desc
		})
	default:
		return nil, notFound("unknown sortBy: %s", sortBy)
	}
	out := []any{}
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
		out = append(out, api.taskData(a, t))
	}
	return out, nil
}

// errorMessage is a failed task's errorMessage as Spark's
// TaskEndReason.toErrorString writes it: the executor-loss and fetch
// failure texts are rendered from their fields here, and only here.
func errorMessage(t *model.Task) string {
	switch {
	case t.Loss != nil:
		l := t.Loss
		exec, behavior := cmp.Or(l.ExecutorID, "Unknown"), "unrelated to the running tasks"
		if l.CausedByApp {
			behavior = "caused by one of the running tasks"
		}
		msg := "ExecutorLostFailure (executor " + exec + " exited " + behavior + ")"
		if l.HasReason {
			msg += " Reason: " + l.Reason
		}
		return msg
	case t.Fetch != nil:
		f := t.Fetch
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
	return t.ErrorMessage
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

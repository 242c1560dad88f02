package historyapi

import (
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// stageOpts are the query parameters of the stage resources.
type stageOpts struct {
	details, withSummaries bool
	taskStatus             map[string]bool
	quantiles              []float64
}

func parseStageOpts(q url.Values, detailsDefault bool) (stageOpts, error) {
	o := stageOpts{details: boolParam(q, "details", detailsDefault), withSummaries: boolParam(q, "withSummaries", false)}
	st, err := taskStatuses(q["taskStatus"])
	if err != nil {
		return o, err
	}
	o.taskStatus = st
	qs := q.Get("quantiles")
	if qs == "" {
		qs = "0.0,0.25,0.5,0.75,1.0"
	}
	o.quantiles, err = parseQuantiles(qs)
	return o, err
}

func parseQuantiles(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64) // Java's toDouble trims
		if err != nil {
			return nil, badRequest("Bad value for parameter \"quantiles\".  Expected a double, got %q", p)
		}
		out = append(out, f)
	}
	sort.Float64s(out)
	return out, nil
}

func taskStatuses(vals []string) (map[string]bool, error) {
	m := map[string]bool{}
	for _, s := range vals {
		u := strings.ToUpper(s)
		switch u {
		case "RUNNING", "KILLED", "FAILED", "SUCCESS", "UNKNOWN":
			m[u] = true
		default:
			return nil, notFound("unknown task status: %s", s)
		}
	}
	return m, nil
}

func (api *API) stages(a *model.Attempt, rest []string, q url.Values, path string) (any, error) {
	if len(rest) == 0 {
		return api.stageList(a, q)
	}
	id, err := strconv.Atoi(rest[0])
	if err != nil {
		return nil, notFound("unknown resource: %s", path)
	}
	atts := a.StageAttempts(id)
	if len(rest) == 1 {
		opts, err := parseStageOpts(q, true)
		if err != nil {
			return nil, err
		}
		if len(atts) == 0 {
			return nil, notFound("unknown stage: %d", id)
		}
		out := []any{}
		for _, s := range atts {
			out = append(out, api.stageData(a, s, opts))
		}
		return out, nil
	}
	attempt, err := strconv.Atoi(rest[1])
	if err != nil {
		return nil, notFound("unknown resource: %s", path)
	}
	s := a.Stage(id, attempt)
	if s == nil {
		if len(atts) == 0 {
			return nil, notFound("unknown stage: %d", id)
		}
		ids := make([]string, len(atts))
		for i, x := range atts {
			ids[i] = strconv.Itoa(x.AttemptID)
		}
		return nil, notFound("unknown attempt for stage %d.  Found attempts: [%s]", id, strings.Join(ids, ","))
	}
	if len(rest) == 2 {
		opts, err := parseStageOpts(q, true)
		if err != nil {
			return nil, err
		}
		return api.stageData(a, s, opts), nil
	}
	if len(rest) == 3 {
		switch rest[2] {
		case "taskSummary":
			qs := q.Get("quantiles")
			if qs == "" {
				qs = "0.05,0.25,0.5,0.75,0.95"
			}
			quantiles, err := parseQuantiles(qs)
			if err != nil {
				return nil, err
			}
			if d := taskSummary(a, s, quantiles); d != nil {
				return d, nil
			}
			return nil, notFound("No tasks reported metrics for %d / %d yet.", id, attempt)
		case "taskList":
			return api.taskList(a, s, q)
		}
	}
	return nil, notFound("unknown resource: %s", path)
}

func (api *API) stageList(a *model.Attempt, q url.Values) (any, error) {
	want := map[string]bool{}
	for _, s := range q["status"] {
		u := strings.ToUpper(s)
		switch u {
		case model.StageActive, model.StageComplete, model.StageFailed, model.StagePending, model.StageSkipped:
			want[u] = true
		default:
			return nil, notFound("unknown stage status: %s", s)
		}
	}
	opts, err := parseStageOpts(q, false)
	if err != nil {
		return nil, err
	}
	stages := append([]*model.StageAttempt(nil), a.Stages...)
	sort.Slice(stages, func(i, j int) bool {
		if stages[i].StageID != stages[j].StageID {
			return stages[i].StageID > stages[j].StageID
		}
		return stages[i].AttemptID > stages[j].AttemptID
	})
	out := []any{}
	for _, s := range stages {
		if len(want) == 0 || want[shown(s).Status] {
			out = append(out, api.stageData(a, s, opts))
		}
	}
	return out, nil
}

// shown is the stage attempt as the History Server shows it.
func shown(s *model.StageAttempt) *model.StageAttempt {
	if s.HistoryView != nil {
		return s.HistoryView
	}
	return s
}

func (api *API) stageData(a *model.Attempt, s *model.StageAttempt, opts stageOpts) *Obj {
	s = shown(s)
	m := &s.Metrics
	o := obj().Set("status", s.Status).Set("stageId", s.StageID).Set("attemptId", s.AttemptID).
		Set("numTasks", s.NumTasks).Set("numActiveTasks", s.ActiveTasks).Set("numCompleteTasks", s.CompletedTasks).
		Set("numFailedTasks", s.FailedTasks).Set("numKilledTasks", s.KilledTasks).
		Set("numCompletedIndices", s.CompletedIndices.Len())
	if s.SubmissionTime != model.NoTime {
		o.Set("submissionTime", date(s.SubmissionTime))
	}
	if s.FirstLaunchTime != model.NoTime {
		o.Set("firstTaskLaunchedTime", date(s.FirstLaunchTime))
	}
	if s.CompletionTime != model.NoTime {
		o.Set("completionTime", date(s.CompletionTime))
	}
	if s.HasFailureReason {
		o.Set("failureReason", s.FailureReason)
	}
	// The stage's totals, flat, from the table of task metrics; the read
	// bytes follow the local ones, as StageData has them.
	// StageData declares shuffleRemoteReqsDuration among the push-based
	// merged totals, before shuffleMergedRemoteReqsDuration.
	var reqs *model.MetricField
	eachAPIField(api.metrics, func(f *model.MetricField) {
		switch f.Stage {
		case "":
			return
		case "shuffleRemoteReqsDuration":
			reqs = f
			return
		case "shuffleMergedRemoteReqsDuration":
			if reqs != nil {
				o.Set(reqs.Stage, *reqs.Of(m))
				reqs = nil
			}
		}
		o.Set(f.Stage, *f.Of(m))
		if f.Stage == "shuffleLocalBytesRead" {
			o.Set("shuffleReadBytes", m.ShuffleReadBytes())
		}
	})
	if reqs != nil {
		o.Set(reqs.Stage, *reqs.Of(m))
	}
	o.Set("name", s.Name)
	if s.HasDescription {
		o.Set("description", s.Description)
	}
	o.Set("details", s.Details).Set("schedulingPool", s.SchedulingPool).Set("rddIds", intsAny(s.RDDIDs)).
		Set("accumulatorUpdates", accumulables(s.Accumulables, false))
	if opts.details {
		tasks := obj()
		for _, t := range sparkTaskMapOrder(s, opts.taskStatus) {
			tasks.Set(strconv.FormatInt(t.TaskID, 10), api.taskData(a, t))
		}
		o.Set("tasks", tasks)
		es := obj()
		for _, e := range sparkExecSummaryOrder(s.ExecSummary) {
			es.Set(e.ExecutorID, execStageSummary(e))
		}
		o.Set("executorSummary", es)
		if sp := speculationSummary(s); sp != nil {
			o.Set("speculationSummary", sp)
		}
	}
	o.Set("killedTasksSummary", countsObj(s.KilledSummary)).Set("resourceProfileId", s.ResourceProfileID)
	if s.Peak.Set {
		o.Set("peakExecutorMetrics", peakObj(&s.Peak))
	}
	if opts.withSummaries {
		if d := taskSummary(a, s, opts.quantiles); d != nil {
			o.Set("taskMetricsDistributions", d)
		}
		if d := executorDistributions(s, opts.quantiles); d != nil {
			o.Set("executorMetricsDistributions", d)
		}
	}
	o.Set("isShufflePushEnabled", s.IsShufflePushEnabled).Set("shuffleMergersCount", s.ShuffleMergersCount)
	return o
}

func accumulables(accs []model.Accumulable, withUpdate bool) []any {
	out := []any{}
	for _, acc := range accs {
		if acc.Internal || acc.SQL {
			continue
		}
		o := obj().Set("id", acc.ID).Set("name", acc.Name)
		if withUpdate && acc.HasUpdate {
			o.Set("update", acc.Update)
		}
		o.Set("value", acc.Value)
		out = append(out, o)
	}
	return out
}

func execStageSummary(e *model.ExecutorStageSummary) *Obj {
	m := &e.Metrics
	o := obj().Set("taskTime", e.TaskTime).Set("failedTasks", e.FailedTasks).
		Set("succeededTasks", e.SucceededTasks).Set("killedTasks", e.KilledTasks).
		Set("inputBytes", m.InputBytesRead).Set("inputRecords", m.InputRecordsRead).
		Set("outputBytes", m.OutputBytesWritten).Set("outputRecords", m.OutputRecordsWritten).
		Set("shuffleRead", m.ShuffleReadBytes()).Set("shuffleReadRecords", m.ShuffleRead.RecordsRead).
		Set("shuffleWrite", m.ShuffleWrite.BytesWritten).Set("shuffleWriteRecords", m.ShuffleWrite.RecordsWritten).
		Set("memoryBytesSpilled", m.MemoryBytesSpilled).Set("diskBytesSpilled", m.DiskBytesSpilled).
		Set("isBlacklistedForStage", e.IsExcluded)
	if e.Peak.Set {
		o.Set("peakMemoryMetrics", peakObj(&e.Peak))
	}
	o.Set("isExcludedForStage", e.IsExcluded)
	return o
}

func speculationSummary(s *model.StageAttempt) *Obj {
	n, active, done, failed, killed := 0, 0, 0, 0, 0
	for _, t := range s.Tasks {
		if !t.Speculative {
			continue
		}
		n++
		switch t.Status() {
		case model.TaskRunning, model.TaskGetResult:
			active++
		case model.TaskSuccess:
			done++
		case model.TaskKilled:
			killed++
		default:
			failed++
		}
	}
	if n == 0 {
		return nil
	}
	return obj().Set("numTasks", n).Set("numActiveTasks", active).Set("numCompletedTasks", done).
		Set("numFailedTasks", failed).Set("numKilledTasks", killed)
}

// sparkTaskMapOrder lists a stage's tasks (of the statuses asked, all when
// none) as Spark's stage details map them: its task list by id, highest
// first, made an immutable Map (model.ImmutableOrder).
func sparkTaskMapOrder(s *model.StageAttempt, statuses map[string]bool) []*model.Task {
	var ts []*model.Task
	for _, t := range s.Tasks {
		if len(statuses) == 0 || statuses[t.Status()] {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(x, y *model.Task) int { return cmpInt64(y.TaskID, x.TaskID) })
	hashes := make([]int32, len(ts))
	for i, t := range ts {
		hashes[i] = model.LongHash(t.TaskID)
	}
	return model.Reorder(ts, model.ImmutableOrder(hashes))
}

// sparkExecSummaryOrder lists a stage's executor summaries as Spark's
// stage details map them: by executor id, made an immutable Map.
func sparkExecSummaryOrder(sums []*model.ExecutorStageSummary) []*model.ExecutorStageSummary {
	sorted := slices.Clone(sums)
	slices.SortFunc(sorted, func(x, y *model.ExecutorStageSummary) int { return strings.Compare(x.ExecutorID, y.ExecutorID) })
	hashes := make([]int32, len(sorted))
	for i, e := range sorted {
		hashes[i] = model.StringHash(e.ExecutorID)
	}
	return model.Reorder(sorted, model.ImmutableOrder(hashes))
}

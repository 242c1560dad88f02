package historyapi

import (
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// StageOptions are the query parameters of the stage resources.
type StageOptions struct {
	// Details adds the tasks (of TaskStatus's statuses; all when empty)
	// and the per-executor summaries.
	Details       bool
	TaskStatus    map[string]bool
	WithSummaries bool
	Quantiles     []float64
}

func parseStageOpts(q url.Values, detailsDefault bool) (StageOptions, error) {
	o := StageOptions{Details: boolParam(q, "details", detailsDefault), WithSummaries: boolParam(q, "withSummaries", false)}
	st, err := taskStatuses(q["taskStatus"])
	if err != nil {
		return o, err
	}
	o.TaskStatus = st
	qs := q.Get("quantiles")
	if qs == "" {
		qs = "0.0,0.25,0.5,0.75,1.0"
	}
	o.Quantiles, err = parseQuantiles(qs)
	return o, err
}

// MaxQuantiles bounds the quantiles one request asks for: each costs a
// value per task metric per stage (withSummaries) and 30,000 of them made
// a 518 MB answer. The History Server has no bound; clients ask for 5.
const MaxQuantiles = 100

func parseQuantiles(s string) ([]float64, error) {
	if n := strings.Count(s, ",") + 1; n > MaxQuantiles {
		return nil, badRequest("Bad value for parameter \"quantiles\": %d values, at most %d", n, MaxQuantiles)
	}
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
			out = append(out, api.Stage(a, s, opts).obj())
		}
		return out, nil
	}
	attempt, err := strconv.Atoi(rest[1])
	if err != nil {
		return nil, notFound("unknown resource: %s", path)
	}
	s, err := StageAttempt(a, id, attempt)
	if err != nil {
		return nil, err
	}
	if len(rest) == 2 {
		opts, err := parseStageOpts(q, true)
		if err != nil {
			return nil, err
		}
		return api.Stage(a, s, opts).obj(), nil
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
			if d := TaskSummary(a, s, quantiles); d != nil {
				return d.obj(), nil
			}
			return nil, notFound("No tasks reported metrics for %d / %d yet.", id, attempt)
		case "taskList":
			return api.taskList(a, s, q)
		}
	}
	return nil, notFound("unknown resource: %s", path)
}

// StageAttempt is attempt of stage id, or the API's error naming the
// attempts there are.
func StageAttempt(a *model.Attempt, id, attempt int) (*model.StageAttempt, error) {
	if s := a.Stage(id, attempt); s != nil {
		return s, nil
	}
	atts := a.StageAttempts(id)
	if len(atts) == 0 {
		return nil, notFound("unknown stage: %d", id)
	}
	ids := make([]string, len(atts))
	for i, x := range atts {
		ids[i] = strconv.Itoa(x.AttemptID)
	}
	return nil, notFound("unknown attempt for stage %d.  Found attempts: [%s]", id, strings.Join(ids, ","))
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
	out := []any{}
	for _, d := range api.StageList(a, want, opts) {
		out = append(out, d.obj())
	}
	return out, nil
}

// StageList is the attempt's stage attempts of the statuses asked (all
// when none), newest stage first, as /stages answers them.
func (api *API) StageList(a *model.Attempt, statuses map[string]bool, opts StageOptions) []*StageData {
	stages := append([]*model.StageAttempt(nil), a.Stages...)
	sort.Slice(stages, func(i, j int) bool {
		if stages[i].StageID != stages[j].StageID {
			return stages[i].StageID > stages[j].StageID
		}
		return stages[i].AttemptID > stages[j].AttemptID
	})
	out := []*StageData{}
	for _, s := range stages {
		if len(statuses) == 0 || statuses[shown(s).Status] {
			out = append(out, api.Stage(a, s, opts))
		}
	}
	return out
}

// shown is the stage attempt as the History Server shows it.
func shown(s *model.StageAttempt) *model.StageAttempt {
	if s.HistoryView != nil {
		return s.HistoryView
	}
	return s
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

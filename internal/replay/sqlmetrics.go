package replay

import (
	"maps"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
	"github.com/sparkdx/sparkdx/internal/sqlplan"
)

// The SQL tab's metric values are built the way Spark's
// SQLAppStatusListener builds them while it replays a log, quirks
// included: per stage it keeps one value per task index of the stage's
// latest attempt, and a job that lists a stage again (skipped, under a
// later job of the query) starts that stage's values over. The strings it
// stores when the query ends are what /sql answers; matching them means
// following the same events in the same order.

// sqlLive is a SQL execution the listener still tracks.
type sqlLive struct {
	x      *model.SQLExecution
	types  map[int64]string // accumulator id → metric type, of every plan version
	jobs   map[int]bool     // the query's jobs
	stages map[int]bool     // the stages of its jobs
	// stageOrder lists stages as first named; Spark's set of them
	// (model.ImmutableOrder) decides which stage a tied max credits.
	stageOrder []int
	driver     [][2]int64 // the driver's updates, in order, repeats kept
	// ended is set when the query ended and its values were fixed.
	ended     bool
	endEvents int
}

// sqlStage is the listener's LiveStageMetrics: the latest attempt of a
// stage some tracked query runs.
type sqlStage struct {
	stageID, attempt, numTasks int
	exec                       *sqlLive // whose metric types it tracks
	completed                  map[int]bool
	values                     map[int64][]int64 // accumulator id → value per task index
	max                        map[int64][2]int64
}

// sqlTracker is the listener's state, kept in the replay state so a tail
// snapshot carries it.
type sqlTracker struct {
	live   map[int64]*sqlLive
	stages map[int]*sqlStage
}

func (t *sqlTracker) init() {
	if t.live == nil {
		t.live, t.stages = map[int64]*sqlLive{}, map[int]*sqlStage{}
	}
}

func (t *sqlTracker) exec(x *model.SQLExecution) *sqlLive {
	t.init()
	l := t.live[x.ID]
	if l == nil {
		l = &sqlLive{x: x, types: map[int64]string{}, jobs: map[int]bool{}, stages: map[int]bool{}}
		t.live[x.ID] = l
	}
	return l
}

// addPlan records the metric types of a plan version's graph.
func (l *sqlLive) addPlan(plan *model.SQLPlanNode) {
	for _, n := range sqlplan.Build(plan).AllNodes() {
		for _, m := range n.Metrics {
			l.types[m.AccumulatorID] = m.MetricType
		}
	}
}

func (t *sqlTracker) jobStart(x *model.SQLExecution, e *sparkevent.JobStart) {
	l := t.exec(x)
	if len(l.types) > 0 {
		for i := range e.Stages {
			si := &e.Stages[i]
			t.stages[si.StageID] = &sqlStage{stageID: si.StageID, numTasks: si.NumTasks, exec: l}
		}
	}
	l.jobs[e.JobID] = true
	for _, id := range e.StageIDs {
		if !l.stages[id] {
			l.stages[id] = true
			l.stageOrder = append(l.stageOrder, id)
		}
	}
}

func (t *sqlTracker) jobEnd(jobID int) {
	for _, l := range t.live {
		if l.jobs[jobID] {
			l.endEvents++
			t.update(l)
		}
	}
}

func (t *sqlTracker) isSQLStage(stageID int) bool {
	for _, l := range t.live {
		if l.stages[stageID] {
			return true
		}
	}
	return false
}

func (t *sqlTracker) stageSubmitted(stageID, attempt int) {
	if !t.isSQLStage(stageID) {
		return
	}
	if s := t.stages[stageID]; s != nil && s.attempt != attempt {
		t.stages[stageID] = &sqlStage{stageID: stageID, attempt: attempt, numTasks: s.numTasks, exec: s.exec}
	}
}

func (t *sqlTracker) taskEnd(e *sparkevent.TaskEnd) {
	if len(e.Info.SQLUpdates) == 0 || !t.isSQLStage(e.StageID) {
		return
	}
	s := t.stages[e.StageID]
	if s == nil || s.attempt != e.StageAttempt {
		return
	}
	idx := e.Info.Index
	if s.completed[idx] || idx < 0 || idx >= s.numTasks {
		return
	}
	for _, u := range e.Info.SQLUpdates {
		typ, ok := s.exec.types[u.ID]
		if !ok {
			continue
		}
		if s.values == nil {
			s.values, s.max = map[int64][]int64{}, map[int64][2]int64{}
		}
		vs := s.values[u.ID]
		if vs == nil {
			vs = make([]int64, s.numTasks)
			s.values[u.ID] = vs
		}
		vs[idx] = u.Value
		if sqlplan.NeedsMax(typ) {
			if m, ok := s.max[u.ID]; !ok || u.Value > m[0] {
				s.max[u.ID] = [2]int64{u.Value, e.Info.TaskID}
			}
		}
	}
	// Spark's sparkevent.TaskInfo.successful: finished, neither failed nor killed.
	if e.Info.FinishTime != 0 && !e.Info.Failed && !e.Info.Killed {
		if s.completed == nil {
			s.completed = map[int]bool{}
		}
		s.completed[idx] = true
	}
}

// driverUpdates is SparkListenerDriverAccumUpdates: each update is one
// more value of its metric (a metric the driver sets three times shows
// three values), recorded while the query is tracked.
func (t *sqlTracker) driverUpdates(id int64, updates [][2]int64) {
	if l := t.live[id]; l != nil {
		l.driver = append(l.driver, updates...)
	}
}

// end is SparkListenerSQLExecutionEnd: the values are fixed now.
func (t *sqlTracker) end(x *model.SQLExecution) {
	l := t.live[x.ID]
	if l == nil {
		return
	}
	x.MetricValues = t.aggregate(l)
	l.ended = true
	t.removeStale(l)
	l.endEvents++
	t.update(l)
}

// update stops tracking a query once its end and every job's end came.
func (t *sqlTracker) update(l *sqlLive) {
	if l.endEvents >= len(l.jobs)+1 {
		t.removeStale(l)
		delete(t.live, l.x.ID)
	}
}

// removeStale drops the stages no other tracked query runs.
func (t *sqlTracker) removeStale(l *sqlLive) {
	active := map[int]bool{}
	for _, o := range t.live {
		if o != l {
			maps.Copy(active, o.stages)
		}
	}
	for id := range t.stages {
		if !active[id] {
			delete(t.stages, id)
		}
	}
}

// flush gives each query still running its values so far, as the History
// Server does when it has read a log to its end.
func (t *sqlTracker) flush() {
	for _, l := range t.live {
		if !l.ended {
			l.x.MetricValues = t.aggregate(l)
		}
	}
}

// aggregate is the listener's aggregateMetrics: every task value of the
// query's stages and the driver's updates, per accumulator, as a string.
func (t *sqlTracker) aggregate(l *sqlLive) map[int64]string {
	all := map[int64][]int64{}
	max := map[int64]*sqlplan.MaxTask{}
	// Spark walks the query's stages in its set's order and keeps the
	// first of equal maxima: a tie credits the stage that set lists first.
	hashes := make([]int32, len(l.stageOrder))
	for i, id := range l.stageOrder {
		hashes[i] = model.IntHash(id)
	}
	for _, id := range model.Reorder(l.stageOrder, model.ImmutableOrder(hashes)) {
		s := t.stages[id]
		if s == nil {
			continue
		}
		for acc, vs := range s.values {
			if _, ok := l.types[acc]; ok {
				all[acc] = append(all[acc], vs...)
			}
		}
		for acc, m := range s.max {
			if _, ok := l.types[acc]; !ok {
				continue
			}
			if cur := max[acc]; cur == nil {
				max[acc] = &sqlplan.MaxTask{Value: m[0], StageID: int64(s.stageID), AttemptID: int64(s.attempt), Task: m[1]}
			} else if m[0] > cur.Value {
				*cur = sqlplan.MaxTask{Value: m[0], StageID: int64(s.stageID), AttemptID: int64(s.attempt), Task: m[1]}
			}
		}
	}
	for _, u := range l.driver {
		acc, v := u[0], u[1]
		if _, ok := l.types[acc]; !ok {
			continue
		}
		if m := max[acc]; m != nil && v > m.Value {
			delete(max, acc) // the driver's value is the largest: "(driver)"
		}
		all[acc] = append(all[acc], v)
	}
	out := make(map[int64]string, len(all))
	for acc, vs := range all {
		if v, ok := sqlplan.CustomValue(l.types[acc], vs); ok {
			out[acc] = v
			continue
		}
		out[acc] = sqlplan.StringValue(l.types[acc], vs, max[acc])
	}
	return out
}

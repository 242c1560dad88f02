package replay

import (
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

func (st *state) sql(ev sparkevent.Event) {
	switch e := ev.(type) {
	case sparkevent.SQLStart:
		if st.a.SQLExecution(e.ExecutionID) == nil {
			x := st.pendingSQL[e.ExecutionID]
			if x == nil {
				x = &model.SQLExecution{EndTime: model.NoTime}
			}
			delete(st.pendingSQL, e.ExecutionID)
			x.ID, x.RootID, x.QueryID, x.ModifiedConfigs = e.ExecutionID, e.RootID, e.QueryID, e.ModifiedConfigs
			x.Description, x.Details, x.PhysicalPlan, x.Plan = e.Description, e.Details, e.PhysicalPlan, e.Plan
			x.StartTime = e.Time
			st.a.AddSQLExecution(x)
		}
		if x := st.a.SQLExecution(e.ExecutionID); x != nil {
			st.sqlm.exec(x).addPlan(e.Plan)
		}
	case sparkevent.SQLEnd:
		if x := st.a.SQLExecution(e.ExecutionID); x != nil {
			x.EndTime, x.ErrorMessage, x.HasErrorMessage = e.Time, e.ErrorMessage, e.HasErrorMessage
			st.sqlm.end(x)
		}
	case sparkevent.SQLAdaptive:
		if x := st.a.SQLExecution(e.ExecutionID); x != nil {
			x.PhysicalPlan, x.AQEUpdates = e.PhysicalPlan, x.AQEUpdates+1
			if e.Plan != nil {
				x.Plan = e.Plan
			}
			st.sqlm.exec(x).addPlan(e.Plan)
		}
	case sparkevent.SQLAdaptiveMetrics:
		if x := st.a.SQLExecution(e.ExecutionID); x != nil {
			l := st.sqlm.exec(x)
			for _, m := range e.Metrics {
				l.types[m.AccumulatorID] = m.MetricType
			}
		}
	case sparkevent.SQLDriverAccums:
		st.sqlm.driverUpdates(e.ExecutionID, e.Updates)
		if x := st.startedOrPendingSQL(e.ExecutionID); x != nil {
			if x.DriverUpdates == nil {
				x.DriverUpdates = map[int64]int64{}
			}
			for _, u := range e.Updates {
				x.DriverUpdates[u[0]] = u[1]
			}
		}
	}
}

// jobSQL is the query a job names. Spark's SQL listener creates a query
// a job names before its start event (getOrCreateExecution; a query run
// inside another may start after its first job) and the start fills it
// in, keeping the jobs it has: sparkdx holds such a query pending until
// its start adds it to the attempt, so that its job ids stay whole.
func (st *state) jobSQL(id int64) *model.SQLExecution {
	if x := st.startedOrPendingSQL(id); x != nil {
		return x
	}
	if st.pendingSQL == nil {
		st.pendingSQL = map[int64]*model.SQLExecution{}
	}
	x := &model.SQLExecution{ID: id, RootID: id, StartTime: model.NoTime, EndTime: model.NoTime}
	st.pendingSQL[id] = x
	return x
}

// startedOrPendingSQL is a query that started or that a job named.
func (st *state) startedOrPendingSQL(id int64) *model.SQLExecution {
	if x := st.a.SQLExecution(id); x != nil {
		return x
	}
	return st.pendingSQL[id]
}

func (st *state) streaming(ev sparkevent.Event) {
	query := func(id, runID, name string) *model.StreamingQuery {
		key := id + "/" + runID
		if q := st.streams[key]; q != nil {
			return q
		}
		q := &model.StreamingQuery{ID: id, RunID: runID, Name: name, StartTime: model.NoTime, EndTime: model.NoTime}
		st.streams[key] = q
		st.a.Streaming = append(st.a.Streaming, q)
		return q
	}
	switch e := ev.(type) {
	case sparkevent.QueryStarted:
		query(e.ID, e.RunID, e.Name).StartTime = e.Time
	case sparkevent.QueryProgress:
		q := query(e.ID, e.RunID, e.Name)
		q.Progress = append(q.Progress, e.Progress)
	case sparkevent.QueryTerminated:
		q := query(e.ID, e.RunID, "")
		q.Exception = e.Exception
		if n := len(q.Progress); n > 0 {
			q.EndTime = q.Progress[n-1].Time
		}
	}
}

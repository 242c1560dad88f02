package replay

import (
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

func (st *state) sql(ev sparkevent.Event) {
	switch e := ev.(type) {
	case sparkevent.SQLStart:
		st.a.AddSQLExecution(&model.SQLExecution{ID: e.ExecutionID, RootID: e.RootID, QueryID: e.QueryID, ModifiedConfigs: e.ModifiedConfigs,
			Description: e.Description, Details: e.Details, PhysicalPlan: e.PhysicalPlan, Plan: e.Plan,
			StartTime: e.Time, EndTime: model.NoTime})
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
		if x := st.a.SQLExecution(e.ExecutionID); x != nil {
			if x.DriverUpdates == nil {
				x.DriverUpdates = map[int64]int64{}
			}
			for _, u := range e.Updates {
				x.DriverUpdates[u[0]] = u[1]
			}
		}
	}
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

package historyapi

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sqlplan"
)

// sql answers /sql and /sql/{executionId} as Spark 4.3's SqlResource
// does (3.5 lacks queryId, errorMessage, rootExecutionId, modifiedConfigs
// and the nodes' desc).
func (api *API) sql(a *model.Attempt, rest []string, q url.Values) (any, error) {
	details := boolParam(q, "details", true)
	plan := boolParam(q, "planDescription", true)
	now := api.nowMs()
	switch len(rest) {
	case 1:
		offset, err := intParam(q, "offset", 0)
		if err != nil {
			return nil, err
		}
		length, err := lengthParam(q, -1)
		if err != nil {
			return nil, err
		}
		if length > 0 {
			if err := checkPage(length, offset, len(a.SQL)); err != nil {
				return nil, err
			}
		}
		xs := slices.Clone(a.SQL)
		slices.SortStableFunc(xs, func(x, y *model.SQLExecution) int { return cmpInt64(x.ID, y.ID) })
		if length > 0 {
			xs = xs[min(max(offset, 0), len(xs)):]
			xs = xs[:min(length, len(xs))]
		}
		out := make([]any, 0, len(xs))
		for _, x := range xs {
			out = append(out, executionData(a, x, details, plan, now))
		}
		return out, nil
	case 2:
		id, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil || id < 0 {
			return nil, notFound("unknown resource: sql/%s", rest[1])
		}
		if x := a.SQLExecution(id); x != nil {
			return executionData(a, x, details, plan, now), nil
		}
		return nil, notFound("unknown query execution id: %d", id)
	}
	return nil, notFound("unknown resource: sql/%s", strings.Join(rest[1:], "/"))
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// executionData is Spark's ExecutionData: the query, its jobs by status,
// and with details its plan graph's nodes (highest id first) with their
// metrics' strings, and its edges.
func executionData(a *model.Attempt, x *model.SQLExecution, details, plan bool, now int64) *Obj {
	var running, succeeded, failed []int
	for _, id := range x.SparkJobOrder() {
		status := model.JobRunning
		if j := a.Job(id); j != nil {
			status = j.Status
		}
		switch status {
		case model.JobRunning:
			running = append(running, id)
		case model.JobSucceeded:
			succeeded = append(succeeded, id)
		case model.JobFailed:
			failed = append(failed, id)
		}
	}
	end := x.EndTime
	if end == model.NoTime {
		end = now
	}
	desc := ""
	if plan {
		desc = x.PhysicalPlan
	}
	nodes, edges := []any{}, []any{}
	if details {
		g := sqlplan.Build(x.Plan)
		codegen := g.WholeStageCodegenIDs()
		all := g.AllNodes()
		slices.SortFunc(all, func(m, n *sqlplan.Node) int { return cmpInt64(n.ID, m.ID) })
		for _, n := range all {
			metrics := []any{}
			for _, m := range n.Metrics {
				v, ok := x.MetricValues[m.AccumulatorID]
				if !ok {
					continue
				}
				metrics = append(metrics, obj().Set("name", strings.TrimSpace(m.Name)).
					Set("value", strings.TrimPrefix(v, "\n")))
			}
			o := obj().Set("nodeId", n.ID).Set("nodeName", strings.TrimSpace(n.Name))
			if id, ok := codegen[n.ID]; ok {
				o.Set("wholeStageCodegenId", id)
			}
			nodes = append(nodes, o.Set("metrics", metrics).Set("desc", n.Desc))
		}
		for _, e := range g.Edges {
			edges = append(edges, obj().Set("fromId", e.From).Set("toId", e.To))
		}
	}
	o := obj().Set("id", x.ID).Set("status", executionStatus(a, x)).Set("description", x.Description).
		Set("planDescription", desc).Set("submissionTime", date(x.StartTime)).Set("duration", end-x.StartTime).
		Set("runningJobIds", intsAny(running)).Set("successJobIds", intsAny(succeeded)).
		Set("failedJobIds", intsAny(failed)).Set("nodes", nodes).Set("edges", edges)
	if x.QueryID != "" {
		o.Set("queryId", x.QueryID)
	}
	if x.HasErrorMessage {
		o.Set("errorMessage", x.ErrorMessage)
	}
	return o.Set("rootExecutionId", x.RootID).Set("modifiedConfigs", pairsObj(x.SparkConfigOrder()))
}

// executionStatus is SQLExecutionUIData.executionStatus.
func executionStatus(a *model.Attempt, x *model.SQLExecution) string {
	switch {
	case x.HasErrorMessage && x.ErrorMessage == "":
		return "COMPLETED"
	case x.HasErrorMessage:
		return "FAILED"
	case x.EndTime == model.NoTime:
		return "RUNNING"
	}
	for _, id := range x.JobIDs {
		if j := a.Job(id); j != nil && j.Status == model.JobFailed {
			return "FAILED"
		}
	}
	return "COMPLETED"
}

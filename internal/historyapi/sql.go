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
			d := Execution(a, x, details, plan, now)
			out = append(out, d.obj())
		}
		return out, nil
	case 2:
		id, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil || id < 0 {
			return nil, notFound("unknown resource: sql/%s", rest[1])
		}
		d, err := ExecutionByID(a, id, details, plan, now)
		if err != nil {
			return nil, err
		}
		return d.obj(), nil
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

// ExecutionData is one SQL query as Spark's ExecutionData has it: the
// typed value /sql answers (written by obj) and serve's SQL pages read.
type ExecutionData struct {
	ID                                         int64
	Status, Description, PlanDescription       string
	SubmissionTime                             string // the API's date
	Duration                                   int64
	RunningJobIDs, SuccessJobIDs, FailedJobIDs []int
	// Nodes (highest id first) and Edges come with details.
	Nodes           []SQLNode
	Edges           []sqlplan.Edge
	QueryID         string
	ErrorMessage    string
	HasErrorMessage bool
	RootExecutionID int64
	ModifiedConfigs [][2]string
}

// SQLNode is one node of a query's plan graph with its metrics' strings.
type SQLNode struct {
	NodeID, WholeStageCodegenID int64 // WholeStageCodegenID 0: none
	NodeName, Desc              string
	Metrics                     []SQLMetric
	hasCodegen                  bool
}

// SQLMetric is one metric of a plan node as the SQL tab shows it.
type SQLMetric struct{ Name, Value string }

// ExecutionByID is SQL execution id of the attempt, or the API's error.
func ExecutionByID(a *model.Attempt, id int64, details, plan bool, now int64) (*ExecutionData, error) {
	x := a.SQLExecution(id)
	if x == nil {
		return nil, notFound("unknown query execution id: %d", id)
	}
	return Execution(a, x, details, plan, now), nil
}

// Executions are the attempt's SQL executions by id, as /sql answers them
// without paging.
func Executions(a *model.Attempt, details, plan bool, now int64) []*ExecutionData {
	xs := slices.Clone(a.SQL)
	slices.SortStableFunc(xs, func(x, y *model.SQLExecution) int { return cmpInt64(x.ID, y.ID) })
	out := make([]*ExecutionData, 0, len(xs))
	for _, x := range xs {
		out = append(out, Execution(a, x, details, plan, now))
	}
	return out
}

// Execution is Spark's ExecutionData: the query, its jobs by status, and
// with details its plan graph's nodes (highest id first) with their
// metrics' strings, and its edges.
func Execution(a *model.Attempt, x *model.SQLExecution, details, plan bool, now int64) *ExecutionData {
	d := &ExecutionData{ID: x.ID, Status: executionStatus(a, x), Description: x.Description,
		SubmissionTime: date(x.StartTime), QueryID: x.QueryID, HasErrorMessage: x.HasErrorMessage,
		RootExecutionID: x.RootID, ModifiedConfigs: x.SparkConfigOrder()}
	if x.HasErrorMessage {
		d.ErrorMessage = x.ErrorMessage
	}
	for _, id := range x.SparkJobOrder() {
		status := model.JobRunning
		if j := a.Job(id); j != nil {
			status = j.Status
		}
		switch status {
		case model.JobRunning:
			d.RunningJobIDs = append(d.RunningJobIDs, id)
		case model.JobSucceeded:
			d.SuccessJobIDs = append(d.SuccessJobIDs, id)
		case model.JobFailed:
			d.FailedJobIDs = append(d.FailedJobIDs, id)
		}
	}
	end := x.EndTime
	if end == model.NoTime {
		end = now
	}
	d.Duration = end - x.StartTime
	if plan {
		d.PlanDescription = x.PhysicalPlan
	}
	if details {
		g := sqlplan.Build(x.Plan)
		codegen := g.WholeStageCodegenIDs()
		all := g.AllNodes()
		slices.SortFunc(all, func(m, n *sqlplan.Node) int { return cmpInt64(n.ID, m.ID) })
		for _, n := range all {
			node := SQLNode{NodeID: n.ID, NodeName: strings.TrimSpace(n.Name), Desc: n.Desc}
			node.WholeStageCodegenID, node.hasCodegen = codegen[n.ID]
			for _, m := range n.Metrics {
				v, ok := x.MetricValues[m.AccumulatorID]
				if !ok {
					continue
				}
				node.Metrics = append(node.Metrics, SQLMetric{Name: strings.TrimSpace(m.Name), Value: strings.TrimPrefix(v, "\n")})
			}
			d.Nodes = append(d.Nodes, node)
		}
		d.Edges = g.Edges
	}
	return d
}

// obj writes the execution as Spark's ExecutionData.
func (d *ExecutionData) obj() *Obj {
	nodes, edges := []any{}, []any{}
	for _, n := range d.Nodes {
		metrics := []any{}
		for _, m := range n.Metrics {
			metrics = append(metrics, obj().Set("name", m.Name).Set("value", m.Value))
		}
		o := obj().Set("nodeId", n.NodeID).Set("nodeName", n.NodeName)
		if n.hasCodegen {
			o.Set("wholeStageCodegenId", n.WholeStageCodegenID)
		}
		nodes = append(nodes, o.Set("metrics", metrics).Set("desc", n.Desc))
	}
	for _, e := range d.Edges {
		edges = append(edges, obj().Set("fromId", e.From).Set("toId", e.To))
	}
	o := obj().Set("id", d.ID).Set("status", d.Status).Set("description", d.Description).
		Set("planDescription", d.PlanDescription).Set("submissionTime", d.SubmissionTime).Set("duration", d.Duration).
		Set("runningJobIds", intsAny(d.RunningJobIDs)).Set("successJobIds", intsAny(d.SuccessJobIDs)).
		Set("failedJobIds", intsAny(d.FailedJobIDs)).Set("nodes", nodes).Set("edges", edges)
	if d.QueryID != "" {
		o.Set("queryId", d.QueryID)
	}
	if d.HasErrorMessage {
		o.Set("errorMessage", d.ErrorMessage)
	}
	return o.Set("rootExecutionId", d.RootExecutionID).Set("modifiedConfigs", pairsObj(d.ModifiedConfigs))
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

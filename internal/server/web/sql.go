package web

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/historyapi"
)

// sqlDoc is the API's SQL execution with details.
type sqlDoc struct {
	ID              int64     `json:"id"`
	Status          string    `json:"status"`
	Description     string    `json:"description"`
	PlanDescription string    `json:"planDescription"`
	SubmissionTime  string    `json:"submissionTime"`
	Duration        int64     `json:"duration"`
	RunningJobIDs   []int     `json:"runningJobIds"`
	SuccessJobIDs   []int     `json:"successJobIds"`
	FailedJobIDs    []int     `json:"failedJobIds"`
	Nodes           []sqlNode `json:"nodes"`
	Edges           []sqlEdge `json:"edges"`
}

type sqlNode struct {
	NodeID   int         `json:"nodeId"`
	NodeName string      `json:"nodeName"`
	Desc     string      `json:"desc"`
	Metrics  []sqlMetric `json:"metrics"`
}

type sqlMetric struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// sqlDocOf is the page's view of the API's execution.
func sqlDocOf(x *historyapi.ExecutionData) sqlDoc {
	q := sqlDoc{ID: x.ID, Status: x.Status, Description: x.Description, PlanDescription: x.PlanDescription,
		SubmissionTime: x.SubmissionTime, Duration: x.Duration, RunningJobIDs: x.RunningJobIDs,
		SuccessJobIDs: x.SuccessJobIDs, FailedJobIDs: x.FailedJobIDs}
	for _, n := range x.Nodes {
		node := sqlNode{NodeID: int(n.NodeID), NodeName: n.NodeName, Desc: n.Desc}
		for _, m := range n.Metrics {
			node.Metrics = append(node.Metrics, sqlMetric{Name: m.Name, Value: m.Value})
		}
		q.Nodes = append(q.Nodes, node)
	}
	for _, e := range x.Edges {
		q.Edges = append(q.Edges, sqlEdge{FromID: int(e.From), ToID: int(e.To)})
	}
	return q
}

// sqlEdge goes from a child node to its parent (data flows that way).
type sqlEdge struct {
	FromID int `json:"fromId"`
	ToID   int `json:"toId"`
}

// planGraph is a query plan drawn as boxes in layers, the output at the
// top and the scans at the bottom, each box with the node's metrics.
type planGraph struct {
	W, H  int
	Boxes []planBox
	Lines []planLine
}

type planBox struct {
	ID         int
	X, Y, W, H int
	Name, Desc string
	Metrics    []string // "name: value", the first few
	More       int      // metrics not shown in the box
}

type planLine struct{ X1, Y1, X2, Y2 int }

const (
	planBoxW, planGapX, planGapY = 230, 20, 36
	planLineH, planMaxMetrics    = 15, 4
	planMaxChars                 = 36 // what a box holds at 11 px; the node's title has it all
)

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// layoutPlan places each node one layer below the deepest node it feeds
// (edges go from child to parent), in node id order within a layer.
func layoutPlan(q sqlDoc) *planGraph {
	if len(q.Nodes) == 0 {
		return nil
	}
	parents := map[int][]int{}
	for _, e := range q.Edges {
		parents[e.FromID] = append(parents[e.FromID], e.ToID)
	}
	depth := map[int]int{}
	var depthOf func(id int, seen map[int]bool) int
	depthOf = func(id int, seen map[int]bool) int {
		if d, ok := depth[id]; ok {
			return d
		}
		if seen[id] { // a cycle would be a malformed plan: stop there
			return 0
		}
		seen[id] = true
		d := 0
		for _, p := range parents[id] {
			d = max(d, depthOf(p, seen)+1)
		}
		depth[id] = d
		return d
	}
	layers := map[int][]int{} // depth → node indexes
	maxDepth := 0
	for i, n := range q.Nodes {
		d := depthOf(n.NodeID, map[int]bool{})
		layers[d] = append(layers[d], i)
		maxDepth = max(maxDepth, d)
	}
	g := &planGraph{}
	at := map[int]planBox{}
	y := 10
	for d := 0; d <= maxDepth; d++ {
		idx := layers[d]
		sort.Slice(idx, func(a, b int) bool { return q.Nodes[idx[a]].NodeID < q.Nodes[idx[b]].NodeID })
		rowH := 0
		for col, i := range idx {
			n := q.Nodes[i]
			b := planBox{ID: n.NodeID, X: 10 + col*(planBoxW+planGapX), Y: y, W: planBoxW, Name: clip(n.NodeName, planMaxChars-4), Desc: n.Desc}
			for _, m := range n.Metrics {
				b.Desc += "\n" + m.Name + ": " + m.Value
			}
			for _, m := range n.Metrics {
				if len(b.Metrics) == planMaxMetrics {
					b.More++
					continue
				}
				b.Metrics = append(b.Metrics, clip(m.Name+": "+m.Value, planMaxChars))
			}
			b.H = 22 + planLineH*len(b.Metrics)
			rowH = max(rowH, b.H)
			g.Boxes = append(g.Boxes, b)
			at[n.NodeID] = b
			g.W = max(g.W, b.X+b.W+10)
		}
		y += rowH + planGapY
	}
	g.H = y
	for _, e := range q.Edges {
		from, ok1 := at[e.FromID]
		to, ok2 := at[e.ToID]
		if ok1 && ok2 {
			g.Lines = append(g.Lines, planLine{X1: from.X + from.W/2, Y1: from.Y, X2: to.X + to.W/2, Y2: to.Y + to.H})
		}
	}
	return g
}

// sqlListPage lists the application's SQL queries.
func (s *Pages) sqlListPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	if d.attempt == nil {
		s.errorPage(w, http.StatusNotFound, "Cannot list the SQL queries", "no such attempt: "+d.base)
		return
	}
	var qs []sqlDoc
	for _, x := range historyapi.Executions(d.attempt, false, true, s.cfg.Now().UnixMilli()) {
		qs = append(qs, sqlDocOf(x))
	}
	s.render(w, http.StatusOK, "sql.html", map[string]any{"Title": "SQL · " + sum.Name, "Live": sum.Status == "running",
		"Sum": sum, "Queries": qs})
}

// sqlQueryPage shows one SQL query: its plan as a graph with each node's
// metrics, the physical plan text, and the jobs it ran.
func (s *Pages) sqlQueryPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	id, err := strconv.ParseInt(r.PathValue("query"), 10, 64)
	if err != nil {
		s.errorPage(w, http.StatusNotFound, "Unknown query", "A query is /apps/ID/sql/QUERY.")
		return
	}
	if d.attempt == nil {
		s.errorPage(w, http.StatusNotFound, "Unknown query", "no such attempt: "+d.base)
		return
	}
	x, err := historyapi.ExecutionByID(d.attempt, id, true, true, s.cfg.Now().UnixMilli())
	if err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Unknown query", err.Error())
		return
	}
	q := sqlDocOf(x)
	var jobs []jobRow
	var stages []stageRef
	if d.attempt != nil {
		jobs, stages = jobRows(historyapi.Jobs(d.attempt, nil)), d.stageRefs()
	}
	mine := map[int]bool{}
	for _, ids := range [][]int{q.SuccessJobIDs, q.FailedJobIDs, q.RunningJobIDs} {
		for _, j := range ids {
			mine[j] = true
		}
	}
	var qjobs []jobRow
	for _, j := range jobs {
		if mine[j.JobID] {
			qjobs = append(qjobs, j)
		}
	}
	sort.Slice(qjobs, func(a, b int) bool { return qjobs[a].JobID < qjobs[b].JobID })
	attachStages(qjobs, stages)
	s.render(w, http.StatusOK, "sqlquery.html", map[string]any{"Title": fmt.Sprintf("Query %d · %s", id, sum.Name),
		"Live": sum.Status == "running", "Sum": sum, "Q": q, "Graph": layoutPlan(q), "Jobs": qjobs,
		"Plan": strings.TrimSpace(q.PlanDescription)})
}

package sqlplan

import (
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

func plan(name string, metrics []model.SQLMetric, children ...*model.SQLPlanNode) *model.SQLPlanNode {
	return &model.SQLPlanNode{NodeName: name, SimpleString: name + " details", Metrics: metrics, Children: children}
}

func metric(id int64) []model.SQLMetric {
	return []model.SQLMetric{{Name: "m", AccumulatorID: id, MetricType: Sum}}
}

// exchange builds an exchange over a codegen'd scan; called twice with the
// same ids it gives two equal plans, as a ReusedExchange carries.
func exchange() *model.SQLPlanNode {
	return plan("Exchange", metric(5),
		plan("WholeStageCodegen (1)", metric(4), plan("Range", metric(3))))
}

// TestBuild follows SparkPlanGraph's numbering on a self-join whose second
// side reuses the first side's exchange: ids in depth-first order, one node
// per exchange, clusters holding their nodes, InputAdapters dropped.
func TestBuild(t *testing.T) {
	p := plan("WholeStageCodegen (2)", metric(1),
		plan("SortMergeJoin", metric(2),
			plan("InputAdapter", nil, exchange()),
			plan("InputAdapter", nil, plan("ReusedExchange", nil, exchange()))))
	g := Build(p)

	type node struct {
		id      int64
		name    string
		cluster []int64
	}
	var got []node
	for _, n := range g.AllNodes() {
		x := node{id: n.ID, name: n.Name}
		for _, c := range n.Nodes {
			x.cluster = append(x.cluster, c.ID)
		}
		got = append(got, x)
	}
	want := []node{
		{1, "SortMergeJoin", nil}, {0, "WholeStageCodegen (2)", []int64{1}},
		{2, "Exchange", nil},
		{4, "Range", nil}, {3, "WholeStageCodegen (1)", []int64{4}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nodes:\ngot  %+v\nwant %+v", got, want)
	}
	wantEdges := []Edge{{2, 1}, {4, 2}, {2, 1}} // edges join nodes, never a cluster
	if !reflect.DeepEqual(g.Edges, wantEdges) {
		t.Errorf("edges: got %v, want %v", g.Edges, wantEdges)
	}
	if got, want := g.WholeStageCodegenIDs(), map[int64]int64{1: 2, 4: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("codegen ids: got %v, want %v", got, want)
	}
}

// TestBuildReusedSubquery: the reuse of a subquery points at the original
// with one edge per parent, and a Subquery inside a cluster is not part of it.
func TestBuildReusedSubquery(t *testing.T) {
	sub := func() *model.SQLPlanNode { return plan("Subquery", metric(9), plan("Range", metric(8))) }
	p := plan("WholeStageCodegen (1)", nil,
		plan("Filter", metric(1), sub(), plan("ReusedSubquery", nil, sub())))
	g := Build(p)
	if got, want := g.Edges, []Edge{{2, 1}, {3, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("edges: got %v, want %v", got, want)
	}
	if n := len(g.Nodes[0].Nodes); n != 1 {
		t.Errorf("the cluster holds %d nodes, want only the Filter", n)
	}
}

func TestBuildEmpty(t *testing.T) {
	if g := Build(nil); len(g.Nodes) != 0 || len(g.Edges) != 0 {
		t.Errorf("nil plan: got %+v", g)
	}
	// A wrapper without its child must not crash.
	g := Build(plan("WholeStageCodegen (x)", nil, plan("ShuffleQueryStage", nil)))
	if len(g.Nodes) != 1 || len(g.WholeStageCodegenIDs()) != 0 {
		t.Errorf("got %+v", g)
	}
}

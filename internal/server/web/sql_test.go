package web

import "testing"

// TestLayoutPlan: the output on top, each node a layer below the deepest
// node it feeds, edges from a child's top to its parent's bottom.
func TestLayoutPlan(t *testing.T) {
	var q sqlDoc
	for _, id := range []int{0, 1, 2, 3} {
		q.Nodes = append(q.Nodes, sqlNode{NodeID: id, NodeName: "n"})
	}
	// 0 ← 1 ← 3, 0 ← 2 ← 3: a diamond; 3 sits below both 1 and 2.
	for _, e := range [][2]int{{1, 0}, {2, 0}, {3, 1}, {3, 2}} {
		q.Edges = append(q.Edges, sqlEdge{e[0], e[1]})
	}
	g := layoutPlan(q)
	y := map[int]int{}
	for _, b := range g.Boxes {
		y[b.ID] = b.Y
	}
	if !(y[0] < y[1] && y[1] == y[2] && y[2] < y[3]) {
		t.Errorf("layers: %v; want 0 on top, 1 and 2 beside each other, 3 below", y)
	}
	if len(g.Lines) != 4 {
		t.Errorf("%d lines, want 4", len(g.Lines))
	}
	for _, l := range g.Lines {
		if l.Y1 <= l.Y2 {
			t.Errorf("line %+v does not go up from a child to its parent", l)
		}
	}
	// A cyclic (malformed) plan is still drawn.
	q.Edges = append(q.Edges, sqlEdge{0, 3})
	if g := layoutPlan(q); g == nil || len(g.Boxes) != 4 {
		t.Errorf("cyclic plan: %+v", g)
	}
	if clip("abcdef", 4) != "abc…" || clip("abc", 4) != "abc" {
		t.Error("clip")
	}
}

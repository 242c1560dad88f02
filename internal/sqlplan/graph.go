// Package sqlplan owns what Spark's SQL tab makes of a query's physical
// plan: the plan graph (SparkPlanGraph: WholeStageCodegen clusters,
// reused exchanges and subqueries pointing at one node) and the strings
// its metrics are shown as (SQLMetrics.stringValue). The History Server's
// /sql endpoints and the reports are built on them.
package sqlplan

import (
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Node is one node of the plan graph; a WholeStageCodegen node is a
// cluster holding the nodes it compiled into one function.
type Node struct {
	ID      int64
	Name    string
	Desc    string
	Metrics []model.SQLMetric
	Cluster bool
	Nodes   []*Node // a cluster's nodes
}

// Edge goes from a child node to its parent, as Spark draws it.
type Edge struct{ From, To int64 }

// Graph is a plan as the SQL tab draws it. Nodes holds the top-level
// nodes and clusters in the order they were made; node ids count from 0
// in a depth-first walk of the plan, as Spark numbers them.
type Graph struct {
	Nodes []*Node
	Edges []Edge
}

// AllNodes lists every node, each cluster after the nodes it holds.
func (g *Graph) AllNodes() []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if n.Cluster {
			out = append(out, n.Nodes...)
		}
		out = append(out, n)
	}
	return out
}

// Build makes the graph of a physical plan (SparkPlanGraph.apply of
// Spark 4: a subquery reused twice under one parent draws one edge).
func Build(plan *model.SQLPlanNode) *Graph {
	b := &builder{g: &Graph{}, seen: map[uint64][]seenNode{}, seed: maphash.MakeSeed()}
	if plan != nil {
		b.node(plan, nil, nil)
	}
	return b.g
}

type seenNode struct {
	info *model.SQLPlanNode
	node *Node
}

type builder struct {
	g      *Graph
	nextID int64
	// seen holds the exchanges and subqueries made so far, by plan
	// structure: a ReusedExchange's child is a copy of the exchange it
	// reuses, equal field for field (SparkPlanInfo is a case class).
	seen map[uint64][]seenNode
	seed maphash.Seed
}

func (b *builder) node(p *model.SQLPlanNode, parent, cluster *Node) {
	name := p.NodeName
	child := func() *model.SQLPlanNode {
		if len(p.Children) == 0 {
			return nil
		}
		return p.Children[0]
	}
	switch {
	case strings.HasPrefix(name, "WholeStageCodegen"):
		c := &Node{ID: b.id(), Name: name, Desc: p.SimpleString, Metrics: p.Metrics, Cluster: true}
		b.g.Nodes = append(b.g.Nodes, c)
		if ch := child(); ch != nil {
			b.node(ch, parent, c)
		}
		return
	case name == "InputAdapter", name == "TableCacheQueryStage", name == "ResultQueryStage":
		if ch := child(); ch != nil {
			b.node(ch, parent, nil)
		}
		return
	case name == "BroadcastQueryStage", name == "ShuffleQueryStage":
		ch := child()
		if ch == nil {
			return
		}
		if n := b.lookup(ch); n != nil {
			b.edge(n, parent, false)
		} else {
			b.node(ch, parent, nil)
		}
		return
	case name == "Subquery" && cluster != nil:
		// A subquery is never part of a WholeStageCodegen cluster.
		b.node(p, parent, nil)
		return
	case name == "Subquery" && b.lookup(p) != nil:
		b.edge(b.lookup(p), parent, true)
		return
	case name == "ReusedSubquery":
		// The reuse may come before the original: skip it and let the
		// Subquery case point both at one node.
		if ch := child(); ch != nil {
			b.node(ch, parent, cluster)
		}
		return
	case name == "ReusedExchange" && child() != nil && b.lookup(child()) != nil:
		b.edge(b.lookup(child()), parent, false)
		return
	}
	n := &Node{ID: b.id(), Name: name, Desc: p.SimpleString, Metrics: p.Metrics}
	if cluster == nil {
		b.g.Nodes = append(b.g.Nodes, n)
	} else {
		cluster.Nodes = append(cluster.Nodes, n)
	}
	if strings.Contains(name, "Exchange") || name == "Subquery" {
		h := b.hash(p)
		b.seen[h] = append(b.seen[h], seenNode{p, n})
	}
	b.edge(n, parent, false)
	for _, c := range p.Children {
		b.node(c, n, cluster)
	}
}

func (b *builder) id() int64 {
	id := b.nextID
	b.nextID++
	return id
}

func (b *builder) edge(from, to *Node, dedupe bool) {
	if to == nil {
		return
	}
	e := Edge{from.ID, to.ID}
	if dedupe {
		for _, x := range b.g.Edges {
			if x == e {
				return
			}
		}
	}
	b.g.Edges = append(b.g.Edges, e)
}

func (b *builder) lookup(p *model.SQLPlanNode) *Node {
	for _, s := range b.seen[b.hash(p)] {
		if equal(s.info, p) {
			return s.node
		}
	}
	return nil
}

// hash covers a node's own fields and its children's names: enough to
// tell exchanges apart, with equal settling collisions.
func (b *builder) hash(p *model.SQLPlanNode) uint64 {
	var h maphash.Hash
	h.SetSeed(b.seed)
	h.WriteString(p.NodeName)
	h.WriteString(p.SimpleString)
	for _, m := range p.Metrics {
		h.WriteString(m.Name)
		var buf [8]byte
		for i := range buf {
			buf[i] = byte(m.AccumulatorID >> (8 * i))
		}
		h.Write(buf[:])
	}
	for _, c := range p.Children {
		h.WriteString(c.NodeName)
	}
	return h.Sum64()
}

func equal(a, b *model.SQLPlanNode) bool {
	if a == b {
		return true
	}
	if a.NodeName != b.NodeName || a.SimpleString != b.SimpleString ||
		len(a.Metrics) != len(b.Metrics) || len(a.Children) != len(b.Children) {
		return false
	}
	for i := range a.Metrics {
		if a.Metrics[i] != b.Metrics[i] {
			return false
		}
	}
	for i := range a.Children {
		if !equal(a.Children[i], b.Children[i]) {
			return false
		}
	}
	return true
}

// WholeStageCodegenIDs maps each node inside a cluster to the cluster's
// codegen id, "WholeStageCodegen (3)" → 3, as the REST API reports it.
func (g *Graph) WholeStageCodegenIDs() map[int64]int64 {
	out := map[int64]int64{}
	for _, n := range g.Nodes {
		if !n.Cluster {
			continue
		}
		id, ok := codegenID(strings.TrimSpace(n.Name))
		if !ok {
			continue
		}
		for _, c := range n.Nodes {
			out[c.ID] = id
		}
	}
	return out
}

func codegenID(name string) (int64, bool) {
	const prefix = "WholeStageCodegen ("
	if len(name) < len(prefix)+1 || !strings.HasPrefix(name, prefix) {
		return 0, false
	}
	v, err := strconv.ParseInt(name[len(prefix):len(name)-1], 10, 64)
	return v, err == nil
}

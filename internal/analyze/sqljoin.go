package analyze

import "strings"

// Join node kinds: the physical joins Spark (and Photon, and RAPIDS with a
// Gpu prefix) plans.
const (
	JoinSortMerge        = "SortMergeJoin"
	JoinBroadcastHash    = "BroadcastHashJoin"
	JoinShuffledHash     = "ShuffledHashJoin"
	JoinBroadcastNested  = "BroadcastNestedLoopJoin"
	JoinCartesian        = "CartesianProduct"
	JoinNestedLoopSuffix = "NestedLoopJoin"
)

// IsJoin tells whether a plan node joins its children.
func IsJoin(name string) bool {
	return strings.Contains(name, "Join") || strings.Contains(name, JoinCartesian)
}

// ExaminesPairs tells whether a join tests every pair of its inputs' rows
// (a cartesian product or a nested-loop join: no equi-join key, an OR or
// non-equi condition), so that its work is the product of its inputs
// whatever it outputs.
func ExaminesPairs(name string) bool {
	return strings.Contains(name, JoinCartesian) || strings.Contains(name, JoinNestedLoopSuffix)
}

// InputRows is the row count flowing out of node id: its own "number of
// output rows", or the nearest descendant's when it has none (codegen
// wrappers, projections, exchanges without a row metric); -1 when unknown.
func InputRows(nodes []SQLNode, id int) int64 {
	for depth := 0; depth < 64 && id >= 0 && id < len(nodes); depth++ {
		n := nodes[id]
		if n.Rows >= 0 {
			return n.Rows
		}
		if len(n.Children) != 1 {
			return -1
		}
		id = n.Children[0]
	}
	return -1
}

// JoinSides are the rows out of each child of join node id, -1 each when
// unknown.
func JoinSides(nodes []SQLNode, id int) (left, right int64) {
	left, right = -1, -1
	if id < 0 || id >= len(nodes) {
		return left, right
	}
	for i, c := range nodes[id].Children {
		switch i {
		case 0:
			left = InputRows(nodes, c)
		case 1:
			right = InputRows(nodes, c)
		}
	}
	return left, right
}

// joinPairs sets Pairs on every node that tests every pair of its inputs'
// rows: the product of its inputs' rows. A CartesianProduct's task reads
// one partition of each side, so each side's rows are counted once per
// partition of the other side: the product of the metrics is the pairs
// times the tasks of the stage it ran in (partitions left × right).
func joinPairs(sql []SQLExecution, stages []Stage) {
	tasks := map[int]int64{}
	for _, s := range stages {
		tasks[s.StageID] = max(tasks[s.StageID], int64(s.NumTasks))
	}
	for xi := range sql {
		nodes := sql[xi].Nodes
		for i := range nodes {
			n := &nodes[i]
			if !ExaminesPairs(n.Name) {
				continue
			}
			l, r := JoinSides(nodes, n.ID)
			if l <= 0 || r <= 0 {
				continue
			}
			div := int64(1)
			if strings.Contains(n.Name, JoinCartesian) && len(n.Stages) == 1 && tasks[n.Stages[0]] > 0 {
				div = tasks[n.Stages[0]]
			}
			switch {
			case l/div > (1<<62)/r:
				n.Pairs = 1 << 62 // beyond any real plan; keeps the product in range
			case l%div == 0:
				n.Pairs = l / div * r
			default:
				n.Pairs = l * r / div
			}
		}
	}
}

// RowsAfter is what happened to join node id's output right after it: the
// first node above it that counts rows (skipping projections and codegen
// wrappers) — a filter or an aggregate that keeps fewer rows — with its
// name and row count; "" and -1 when no such node is known.
func RowsAfter(nodes []SQLNode, id int) (name string, rows int64) {
	parent := map[int]int{}
	for _, n := range nodes {
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	for depth := 0; depth < 64; depth++ {
		p, ok := parent[id]
		if !ok {
			return "", -1
		}
		n := nodes[p]
		if n.Rows >= 0 {
			if strings.Contains(n.Name, "Filter") || strings.Contains(n.Name, "Aggregate") ||
				strings.Contains(n.Name, "GroupingAgg") {
				return n.Name, n.Rows
			}
			return "", -1
		}
		id = p
	}
	return "", -1
}

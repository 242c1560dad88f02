package diagnose

import (
	"fmt"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var joinRatio = Threshold{Metric: "join output rows ÷ largest input rows", Warning: 10, Critical: 100,
	Gate: "output ≥ 10^6 rows; cost: the query's stages (wall: their durations, core: their task time, an upper " +
		"bound) ≥ 5 % of the app and ≥ 1 s, else info; ≥ 25 % for critical",
	Source: "ours (Sparklens OIRatio is the same idea, no threshold); the cost gate replaces a 10^8-row floor"}

var crossJoinRows = Threshold{Metric: "cartesian / nested-loop join output rows", Critical: 1e10,
	Source: "DataFlint LargeCrossJoinScanAlert (10^10)"}

// JoinExplosion reports joins whose output has far more rows than their inputs.
var JoinExplosion = &Rule{
	ID:         "join-explosion",
	Title:      "Exploding join",
	Recipe:     "troubleshoot/join-explosion.md",
	Doc:        "A join produced far more rows than its largest input: duplicate keys, a missing condition, a cartesian product.",
	Thresholds: []Threshold{joinRatio, crossJoinRows},
	Run:        runJoinExplosion,
}

func runJoinExplosion(p *Pass) []Finding {
	var out []Finding
	for _, x := range p.Result.SQL {
		for _, n := range x.Nodes {
			cross := strings.Contains(n.Name, "CartesianProduct") || strings.Contains(n.Name, "NestedLoopJoin")
			if !strings.Contains(n.Name, "Join") && !cross || n.Rows < 0 {
				continue
			}
			var left, right, largest int64 = -1, -1, 0
			for i, c := range n.Children {
				rows := inputRows(x.Nodes, c)
				if i == 0 {
					left = rows
				} else {
					right = rows
				}
				largest = max(largest, rows)
			}
			ratio := 0.0
			if largest > 0 {
				ratio = float64(n.Rows) / float64(largest)
			}
			sev := None
			if n.Rows >= 1e6 {
				sev = joinRatio.Level(ratio)
			}
			cost := sqlCost(p, x.ID)
			sev = gate(sev, cost)
			if cross && crossJoinRows.Level(float64(n.Rows)) == Critical {
				sev = Critical
			}
			if sev == None {
				continue
			}
			out = append(out, Finding{Severity: sev, StageIDs: sqlStages(p.Result, x.ID), Cost: cost,
				Detail: fmt.Sprintf("SQL query %d: %s produced %d rows from inputs of %d and %d rows (%.0f×).",
					x.ID, n.Name, n.Rows, left, right, ratio),
				Evidence: map[string]any{"sqlId": x.ID, "joinType": n.Name, "outputRows": n.Rows, "leftRows": left,
					"rightRows": right, "ratio": round(ratio)}})
		}
	}
	return out
}

// inputRows is the row count flowing out of node id: its own "number of
// output rows", or the nearest descendant's when it has none (codegen
// wrappers, projections).
func inputRows(nodes []analyze.SQLNode, id int) int64 {
	for depth := 0; depth < 64; depth++ {
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

// sqlCost is what a SQL query's stages took: an upper bound on what one
// of its operators cost.
func sqlCost(p *Pass, sqlID int64) *Cost {
	var wall, core int64
	for i := range p.Result.Stages {
		if s := &p.Result.Stages[i]; s.SQLExecutionID == sqlID {
			wall += s.DurationMs
			core += s.TaskTimeMs
		}
	}
	return p.cost(wall, core, "the query's stages: wall their durations, core their task time (an upper bound)")
}

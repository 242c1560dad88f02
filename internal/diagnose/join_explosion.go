package diagnose

import (
	"fmt"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

var joinRatio = Threshold{Metric: "join output rows ÷ its larger input's rows", Warning: 10, Critical: 100,
	Gate: "output ≥ 10^6 rows; cost: the stages the join ran in (wall: their durations, core: their task time, " +
		"an upper bound) ≥ 5 % of the app and ≥ 1 s, else info; ≥ 25 % for critical",
	Source: "ours (Sparklens OIRatio is the same idea, no threshold); the cost gate replaces a 10^8-row floor"}

var joinDropped = Threshold{Metric: "share of a join's output the filter or aggregate right after it drops", Warning: 0.9,
	Gate: "output ≥ 10^6 rows and ≥ 2 × its larger input (rows made only to be thrown away: a join judged " +
		"against its small side and what follows it, as TPC-DS q72's 5.3 × that drops 99 %); the same cost gate",
	Source: "ours"}

var joinPairs = Threshold{Metric: "row pairs a cartesian or nested-loop join tested (the product of its inputs)",
	Warning: 1e8, Critical: 1e10,
	Gate:   "whatever it output (an OR or non-equi condition tests every pair); the same cost gate",
	Source: "DataFlint LargeCrossJoinScanAlert (10^10 rows scanned); 10^8 ours (a second or more of a core)"}

// JoinExplosion reports joins that made far more rows than their inputs, or
// tested far more pairs of rows than they output.
var JoinExplosion = &Rule{
	ID:     "join-explosion",
	Title:  "Exploding join",
	Recipe: "troubleshoot/join-explosion.md",
	Doc: "A join node produced far more rows than its larger input (duplicate keys, a missing condition), made " +
		"more rows than its inputs only for the filter or aggregate after it to drop nearly all of them, or — a " +
		"cartesian product or nested-loop join (OR, non-equi conditions) — tested the product of its inputs' " +
		"rows, however few it output. Judged per join node, from the SQL plan's row metrics, with the stage it ran in.",
	Thresholds: []Threshold{joinRatio, joinDropped, joinPairs},
	Run:        runJoinExplosion,
}

// joinView is one join node's numbers.
type joinView struct {
	x            *analyze.SQLExecution
	n            *analyze.SQLNode
	left, right  int64 // rows out of each input, -1 when unknown
	pairs        int64 // rows pairs tested, for a join that tests every pair
	after        string
	afterRows    int64
	ratioBig     float64 // output ÷ the larger input
	ratioSmall   float64 // output ÷ the smaller input
	droppedShare float64 // of its output, what the node right after it dropped
}

func runJoinExplosion(p *Pass) []Finding {
	var out []Finding
	for xi := range p.Result.SQL {
		x := &p.Result.SQL[xi]
		for ni := range x.Nodes {
			n := &x.Nodes[ni]
			if !analyze.IsJoin(n.Name) || n.Rows < 0 {
				continue
			}
			v := viewJoin(x, n)
			sev := None
			if n.Rows >= 1e6 {
				sev = joinRatio.Level(v.ratioBig)
				if v.ratioBig >= 2 {
					sev = max(sev, joinDropped.Level(v.droppedShare))
				}
			}
			if analyze.ExaminesPairs(n.Name) {
				sev = max(sev, joinPairs.Level(float64(v.pairs)))
			}
			if sev == None {
				continue
			}
			cost := joinCost(p, x.ID, n.Stages)
			out = append(out, Finding{Severity: gate(sev, cost), StageIDs: joinStages(p, x.ID, n.Stages), Cost: cost,
				Title: "Exploding join: " + joinKind(n.Name), Detail: v.detail(),
				Evidence: map[string]any{"sqlId": x.ID, "joinType": joinKind(n.Name), "node": n.Name,
					"condition": n.Desc, "outputRows": n.Rows, "leftRows": v.left, "rightRows": v.right,
					"ratio": round(v.ratioBig), "ratioToSmallerInput": round(v.ratioSmall), "pairsTested": v.pairs,
					"nextNode": v.after, "nextNodeRows": v.afterRows, "droppedShare": round(v.droppedShare),
					"joinStages": nonNil(n.Stages)}})
		}
	}
	return out
}

func viewJoin(x *analyze.SQLExecution, n *analyze.SQLNode) joinView {
	v := joinView{x: x, n: n}
	v.left, v.right = analyze.JoinSides(x.Nodes, n.ID)
	big, small := max(v.left, v.right), min(v.left, v.right)
	if small < 0 {
		small = big // one side unknown: judge against the known one
	}
	v.ratioBig, v.ratioSmall = analyze.Ratio(n.Rows, big), analyze.Ratio(n.Rows, small)
	v.pairs = n.Pairs
	v.after, v.afterRows = analyze.RowsAfter(x.Nodes, n.ID)
	if v.afterRows >= 0 && v.afterRows < n.Rows && n.Rows > 0 {
		v.droppedShare = float64(n.Rows-v.afterRows) / float64(n.Rows)
	}
	return v
}

// detail says what the join did: its node and condition, its rows against
// each side (or the pairs it tested), and what the next node kept.
func (v joinView) detail() string {
	n := v.n
	what := n.Name
	if n.Desc != "" && n.Desc != n.Name {
		what = n.Desc
	}
	where := fmt.Sprintf("SQL query %d", v.x.ID)
	if len(n.Stages) > 0 {
		where += ", " + plural("stage", n.Stages)
	}
	var s string
	switch {
	case v.pairs > 0 && strings.Contains(n.Name, analyze.JoinCartesian):
		// Its inputs' metrics count each side once per partition of the
		// other: only the pairs say what it did.
		s = fmt.Sprintf("%s: %s tested %s pairs of rows for %s output rows.", where, what,
			units.Count(v.pairs), units.Count(n.Rows))
	case v.pairs > 0:
		s = fmt.Sprintf("%s: %s tested %s pairs of rows (%s × %s) for %s output rows.", where, what,
			units.Count(v.pairs), units.Count(v.left), units.Count(v.right), units.Count(n.Rows))
	default:
		s = fmt.Sprintf("%s: %s produced %s rows from inputs of %s and %s rows: %.1f× its larger input, %.0f× its smaller.",
			where, what, units.Count(n.Rows), countOrUnknown(v.left), countOrUnknown(v.right), v.ratioBig, v.ratioSmall)
	}
	switch {
	case v.after == "" || v.droppedShare <= 0:
	case strings.Contains(v.after, "Filter"):
		s += fmt.Sprintf(" The %s right after it kept %s of them (%.1f%% dropped).", v.after, units.Count(v.afterRows),
			100*v.droppedShare)
	default:
		s += fmt.Sprintf(" The %s right after it reduced them to %s.", v.after, rowsText(v.afterRows))
	}
	return s
}

func countOrUnknown(n int64) string {
	if n < 0 {
		return "unknown"
	}
	return units.Count(n)
}

// joinKind names a join node by its physical operator, whatever its
// engine prefix (Gpu, Photon): SortMergeJoin, BroadcastHashJoin,
// ShuffledHashJoin, BroadcastNestedLoopJoin, CartesianProduct.
func joinKind(name string) string {
	for _, k := range []string{analyze.JoinBroadcastNested, analyze.JoinCartesian, analyze.JoinSortMerge,
		analyze.JoinBroadcastHash, analyze.JoinShuffledHash} {
		if strings.Contains(name, k) {
			return k
		}
	}
	return name
}

// joinStages are the stages a join ran in, or its query's when the log
// does not say.
func joinStages(p *Pass, sqlID int64, stages []int) []int {
	if len(stages) > 0 {
		return stages
	}
	return sqlStages(p.Result, sqlID)
}

// joinCost is what the stages a join ran in took (an upper bound on what
// the join cost); its query's stages when the log does not say.
func joinCost(p *Pass, sqlID int64, stages []int) *Cost {
	var wall, core int64
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.SQLExecutionID != sqlID {
			continue
		}
		if len(stages) == 0 || containsInt(stages, s.StageID) {
			wall += s.DurationMs
			core += s.TaskTimeMs
		}
	}
	basis := "the stages the join ran in: wall their durations, core their task time (an upper bound)"
	if len(stages) == 0 {
		basis = "the query's stages: wall their durations, core their task time (an upper bound)"
	}
	return p.cost(wall, core, basis)
}

// rowsText counts rows: "1 row", "16 rows", "4.00 M rows".
func rowsText(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return units.Count(n) + " rows"
}

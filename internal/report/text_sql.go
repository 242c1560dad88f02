package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

// topQueriesShown is how many SQL queries the text report lists.
const topQueriesShown = 5

// query is one SQL execution with what the reports say about it.
type query struct {
	x          *analyze.SQLExecution
	durationMs int64
	failed     bool
	jobs       []int
	stages     []int
	taskTimeMs int64
	heavy      []heavyNode
}

// heavyNode is a plan node that stands out in a query by one measure.
type heavyNode struct {
	name, what string
}

// topQueries are the n longest SQL queries that ran a job, longest first
// (a command without a job, or a root query whose sub-queries ran the
// jobs, would list time twice); a query still running at the end of the
// log runs to its last event.
func topQueries(r *analyze.Result, n int) []query {
	var out []query
	for i := range r.SQL {
		x := &r.SQL[i]
		if len(x.JobIDs) == 0 {
			continue
		}
		end := x.EndTime
		if end <= 0 {
			end = r.EndTime
		}
		q := query{x: x, durationMs: max(end-x.StartTime, 0), jobs: slices.Sorted(slices.Values(x.JobIDs))}
		for _, j := range r.Jobs {
			if j.SQLExecutionID == x.ID && j.Status == "FAILED" {
				q.failed = true
			}
		}
		for _, s := range r.Stages {
			if s.SQLExecutionID == x.ID {
				if !slices.Contains(q.stages, s.StageID) {
					q.stages = append(q.stages, s.StageID)
				}
				q.taskTimeMs += s.TaskTimeMs
			}
		}
		slices.Sort(q.stages)
		q.heavy = heavyNodes(x)
		out = append(out, q)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].durationMs > out[j].durationMs })
	return out[:min(n, len(out))]
}

// heavyNodes names the plan nodes with the most output rows, the most
// time and the most spill: where an expert looks first in the SQL tab.
func heavyNodes(x *analyze.SQLExecution) []heavyNode {
	pick := func(value func(*analyze.SQLNode) int64) *analyze.SQLNode {
		var best *analyze.SQLNode
		for i := range x.Nodes {
			n := &x.Nodes[i]
			if v := value(n); v > 0 && (best == nil || v > value(best)) {
				best = n
			}
		}
		return best
	}
	var out []heavyNode
	if n := pick(func(n *analyze.SQLNode) int64 { return n.Rows }); n != nil {
		out = append(out, heavyNode{n.Name, fmt.Sprintf("%s rows", fmtCount(n.Rows))})
	}
	// A WholeStageCodegen cluster's duration covers its nodes: name the
	// operator instead.
	if n := pick(func(n *analyze.SQLNode) int64 {
		if strings.HasPrefix(n.Name, "WholeStageCodegen") {
			return 0
		}
		return n.TimeMs
	}); n != nil {
		out = append(out, heavyNode{n.Name, fmtDuration(n.TimeMs)})
	}
	if n := pick(func(n *analyze.SQLNode) int64 { return n.Metrics["spill size"] }); n != nil {
		out = append(out, heavyNode{n.Name, fmtBytes(n.Metrics["spill size"]) + " spilled"})
	}
	return out
}

func writeTopQueries(w io.Writer, r *analyze.Result, st style) {
	top := topQueries(r, topQueriesShown)
	if len(top) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Longest SQL queries"), st.dim(fmt.Sprintf("%d of %d with jobs", len(top), len(topQueries(r, len(r.SQL))))))
	t := &table{
		head:  []string{"query", "duration", "task time", "jobs", "stages", "description"},
		right: []bool{true, true, true, false, false, false},
	}
	for _, q := range top {
		var paint func(string) string
		desc := units.OneLine(q.x.Description)
		if q.failed {
			desc = "(failed) " + desc
			paint = func(l string) string { return st.wrap(sgrRed, l) }
		}
		t.add(paint, fmt.Sprintf("%d", q.x.ID), fmtDuration(q.durationMs), fmtDurationOrDash(q.taskTimeMs),
			idList(q.jobs), idList(q.stages), units.TruncateMiddle(desc, 48))
		if len(q.heavy) > 0 {
			var parts []string
			for _, h := range q.heavy {
				parts = append(parts, units.OneLine(h.name)+" "+h.what)
			}
			t.add(func(l string) string { return st.dim(l) }, "", "", "", "", "", units.TruncateMiddle("└ "+strings.Join(parts, " · "), 80))
		}
	}
	t.write(w, st, "  ")
}

// idList shortens a sorted id list: "1-4,7".
func idList(ids []int) string {
	if len(ids) == 0 {
		return "-"
	}
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		} else {
			parts = append(parts, fmt.Sprintf("%d", ids[i]))
		}
		i = j + 1
	}
	return units.TruncateMiddle(strings.Join(parts, ","), 16)
}

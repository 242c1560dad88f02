package diagnose

import (
	"cmp"
	"fmt"
	"slices"
)

// foldStages turns one rule's per-stage findings of one cause (same
// Title, Recipe and Group) into one finding that lists the stages: the
// same problem on sixty sub-second stages is one thing to fix, not sixty
// lines to read. A finding naming no stage or several, or folded
// already, is left as it is.
//
// The folded finding is the worst one (most severe, then costliest)
// with: every member's stages (ascending) and executors; the worst
// severity; the members' costs summed (each capped at the application's
// totals: stages that ran side by side overlap in wall time), so that it
// ranks by what the cause cost in all; a detail that counts the stages
// and quotes the worst; each member as a Part, worst first; and each
// member's evidence under "stages" beside the worst one's own.
func foldStages(fs []Finding) []Finding {
	type key struct{ title, recipe, group string }
	groups := map[key][]int{}
	var order []key
	for i, f := range fs {
		if len(f.StageIDs) != 1 || len(f.Parts) > 0 {
			continue
		}
		k := key{f.Title, f.Recipe, f.Group}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	folded := map[int]Finding{} // at the index of a group's first member
	drop := map[int]bool{}
	for _, k := range order {
		idx := groups[k]
		if len(idx) < 2 {
			continue
		}
		members := make([]Finding, len(idx))
		for j, i := range idx {
			members[j] = fs[i]
			drop[i] = true
		}
		folded[idx[0]] = fold(members, "stages")
	}
	if len(folded) == 0 {
		return fs
	}
	out := make([]Finding, 0, len(fs)-len(drop)+len(folded))
	for i, f := range fs {
		if g, ok := folded[i]; ok {
			out = append(out, g)
			continue
		}
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

// worseFirst orders findings most severe first, then costliest.
func worseFirst(a, b Finding) int {
	if a.Severity != b.Severity {
		return cmp.Compare(b.Severity, a.Severity)
	}
	return cmp.Compare(b.Cost.Share(), a.Cost.Share())
}

// fold merges members (two or more) into one finding as foldStages
// describes; what names the members in the evidence ("stages",
// "executors").
func fold(members []Finding, what string) Finding {
	slices.SortStableFunc(members, worseFirst)
	f := members[0]
	f.Parts = make([]Part, 0, len(members))
	f.StageIDs, f.ExecutorIDs = nil, nil
	rows := make([]map[string]any, 0, len(members))
	var cost *Cost
	for _, m := range members {
		f.Parts = append(f.Parts, partOf(m))
		for _, id := range m.StageIDs {
			f.StageIDs = addOnce(f.StageIDs, id)
		}
		for _, id := range m.ExecutorIDs {
			f.ExecutorIDs = addOnce(f.ExecutorIDs, id)
		}
		rows = append(rows, m.Evidence)
		cost = cost.plus(m.Cost)
	}
	slices.Sort(f.StageIDs)
	if cost != nil {
		cost.Basis = fmt.Sprintf("%s; summed over the %d %s", cost.Basis, len(members), what)
	}
	f.Cost = cost
	ev := make(map[string]any, len(f.Evidence)+1)
	for k, v := range f.Evidence {
		ev[k] = v
	}
	ev[what] = rows
	f.Evidence = ev
	f.Detail = fmt.Sprintf("%d %s. Worst: %s", len(members), what, f.Detail)
	return f
}

// partOf is finding m as a part of a folded finding.
func partOf(m Finding) Part {
	p := Part{StageIDs: m.StageIDs, ExecutorIDs: m.ExecutorIDs, Severity: m.Severity, Detail: m.Detail, Cost: m.Cost}
	if p.StageIDs == nil {
		p.StageIDs = []int{}
	}
	if p.ExecutorIDs == nil {
		p.ExecutorIDs = []string{}
	}
	return p
}

// plus adds d to c (either may be nil), capping the sums at the
// application's totals.
func (c *Cost) plus(d *Cost) *Cost {
	switch {
	case d == nil:
		return c
	case c == nil:
		x := *d
		return &x
	}
	x := *c
	x.WallMs, x.CoreMs = x.WallMs+d.WallMs, x.CoreMs+d.CoreMs
	if x.AppWallMs > 0 {
		x.WallMs = min(x.WallMs, x.AppWallMs)
	}
	if x.AppCoreMs > 0 {
		x.CoreMs = min(x.CoreMs, x.AppCoreMs)
	}
	return &x
}

// foldExecutors turns per-executor findings of one rule into one finding
// per severity, listing the executors worst first: the same pressure on
// ten executors is one problem of how they are sized, not ten. fs must be
// ordered worst first and name one executor each; the folded finding
// keeps the worst one's evidence, lists every executor's evidence under
// "executors" and each executor as a Part. what names the problem for the
// count: "came close to their memory limit".
func foldExecutors(fs []Finding, what string) []Finding {
	var out []Finding
	for _, sev := range []Severity{Critical, Warning, Info} {
		var at []Finding
		for _, f := range fs {
			if f.Severity == sev {
				at = append(at, f)
			}
		}
		if len(at) == 0 {
			continue
		}
		f := at[0]
		if len(at) > 1 {
			ev := make(map[string]any, len(f.Evidence)+1)
			for k, v := range f.Evidence {
				ev[k] = v
			}
			var ids []string
			var rows []map[string]any
			for _, x := range at {
				ids = append(ids, x.ExecutorIDs...)
				rows = append(rows, x.Evidence)
				f.Parts = append(f.Parts, partOf(x))
			}
			ev["executors"] = rows
			f.Evidence, f.ExecutorIDs = ev, ids
			f.Detail = fmt.Sprintf("%d executors %s. Worst: %s", len(at), what, f.Detail)
		}
		out = append(out, f)
	}
	return out
}

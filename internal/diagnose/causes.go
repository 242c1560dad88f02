package diagnose

import (
	"fmt"
	"maps"
	"slices"
)

// writeCauses are the rules whose finding on a write stage says why the
// stage was slow: the write time slow-output-write counts is then their
// cost, not a second problem.
var writeCauses = []string{"small-files", "low-parallelism", "data-skew", "straggler-host", "spill", "gc-pressure"}

// attributeWrites folds into the slow-output-write finding the findings
// that explain its write stages, so one slow write is one finding that
// names its cause, not two findings that each count the same minute
// (6,400 small files made a write 85 % of an application: slow-output-
// write said 85 %, small-files 83 %). A cause explains the write when it
// names every write stage; its detail is appended as the reason, its
// recipe replaces the generic one (the fix is the cause's), the worse
// severity stays, and its evidence is kept under "causes". A job commit
// that is itself critical is the problem whatever the stages did, and
// keeps its finding apart from theirs.
func attributeWrites(fs []Finding) []Finding {
	w := slices.IndexFunc(fs, func(f Finding) bool { return f.Rule == SlowOutputWrite.ID })
	if w < 0 || len(fs[w].StageIDs) == 0 {
		return fs
	}
	if ms, _ := fs[w].Evidence["jobCommitMs"].(int64); commitTime.Level(float64(ms)) == Critical {
		return fs
	}
	var causes []int
	for i, f := range fs {
		if i != w && slices.Contains(writeCauses, f.Rule) && covers(f.StageIDs, fs[w].StageIDs) {
			causes = append(causes, i)
		}
	}
	if len(causes) == 0 {
		return fs
	}
	slices.SortStableFunc(causes, func(a, b int) int { return worseFirst(fs[a], fs[b]) })
	write := fs[w]
	write.Recipe = fs[causes[0]].Recipe
	var evidence []map[string]any
	for _, i := range causes {
		c := fs[i]
		write.Severity = max(write.Severity, c.Severity)
		write.Detail += fmt.Sprintf(" Why: %s [%s]", c.Detail, c.Rule)
		evidence = append(evidence, map[string]any{"rule": c.Rule, "severity": c.Severity, "detail": c.Detail,
			"stageIds": c.StageIDs, "evidence": c.Evidence})
		for _, e := range c.ExecutorIDs {
			write.ExecutorIDs = addOnce(write.ExecutorIDs, e)
		}
	}
	write.Evidence = maps.Clone(write.Evidence) // the rule's own finding stays as it was
	write.Evidence["causes"] = evidence
	out := make([]Finding, 0, len(fs)-len(causes))
	for i, f := range fs {
		switch {
		case i == w:
			out = append(out, write)
		case !slices.Contains(causes, i):
			out = append(out, f)
		}
	}
	return out
}

// covers tells whether have names every stage of want.
func covers(have, want []int) bool {
	for _, id := range want {
		if !slices.Contains(have, id) {
			return false
		}
	}
	return true
}

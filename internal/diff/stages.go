package diff

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

// diffStage is one stage (all its attempts) of one run.
type diffStage struct {
	StageIDs []int // one id; a list so JSON reads the same for both runs
	Name     string
	first    int64 // first submission
	sums     StageSide
}

// stagesOf folds a run's stage attempts into stages in submission order;
// stages Spark never submitted (skipped: their output was reused) are left
// out.
func stagesOf(r *analyze.Result) []diffStage {
	byID := map[int]int{}
	var out []diffStage
	for _, s := range r.Stages {
		if s.SubmissionTime <= 0 {
			continue
		}
		i, ok := byID[s.StageID]
		if !ok {
			i = len(out)
			byID[s.StageID] = i
			out = append(out, diffStage{StageIDs: []int{s.StageID}, Name: units.OneLine(s.Name), first: s.SubmissionTime})
		}
		d := &out[i]
		d.first = min(d.first, s.SubmissionTime)
		d.sums.add(s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].first != out[j].first {
			return out[i].first < out[j].first
		}
		return out[i].StageIDs[0] < out[j].StageIDs[0]
	})
	return out
}

// matchStages aligns two runs' stages (each in submission order): see
// Stages.
func matchStages(b, a []diffStage) []Pair {
	names := func(ss []diffStage) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = s.Name
		}
		return out
	}
	return Stages(names(b), names(a))
}

package analyze

import (
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestLongestChainStages: the critical path names the stages of each job
// group's longest chain, first to last, and their costs add up to its
// length.
func TestLongestChainStages(t *testing.T) {
	st := func(id int, parents ...int) *model.StageAttempt {
		return &model.StageAttempt{StageID: id, ParentIDs: parents}
	}
	for _, tc := range []struct {
		name   string
		stages []*model.StageAttempt
		cost   map[int]int64
		want   []int
		length int64
	}{
		{"one stage", []*model.StageAttempt{st(0)}, map[int]int64{0: 5}, []int{0}, 5},
		{"diamond, right arm longer", []*model.StageAttempt{st(0), st(1, 0), st(2, 0), st(3, 1, 2)},
			map[int]int64{0: 1, 1: 2, 2: 7, 3: 1}, []int{0, 2, 3}, 9},
		{"diamond, equal arms: the lower id", []*model.StageAttempt{st(0), st(1, 0), st(2, 0), st(3, 2, 1)},
			map[int]int64{0: 1, 1: 4, 2: 4, 3: 1}, []int{0, 1, 3}, 6},
		{"two chains: the longer", []*model.StageAttempt{st(0), st(1, 0), st(2), st(3, 2)},
			map[int]int64{0: 1, 1: 1, 2: 5, 3: 1}, []int{2, 3}, 6},
		{"a parent outside the group is skipped", []*model.StageAttempt{st(4, 3), st(5, 4)},
			map[int]int64{4: 2, 5: 3}, []int{4, 5}, 5},
		{"a retried stage counts once", []*model.StageAttempt{st(0), st(1, 0), {StageID: 1, AttemptID: 1, ParentIDs: []int{0}}},
			map[int]int64{0: 1, 1: 6}, []int{0, 1}, 7},
		{"no stage", nil, nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			length, path := longestChain(tc.stages, tc.cost)
			if length != tc.length || !slices.Equal(path, tc.want) {
				t.Errorf("got %d through %v, want %d through %v", length, path, tc.length, tc.want)
			}
		})
	}
}

// TestCriticalPathStages: TestSimulate's two stages, 1 after 0, are the
// path; a later job group's chain follows the first's.
func TestCriticalPathStages(t *testing.T) {
	mk := stageMaker(model.NewAttempt())
	g1 := &jobGroup{stages: []*model.StageAttempt{mk(0, nil, 10, 10), mk(1, []int{0}, 30, 10), mk(2, []int{0}, 5)}}
	g2 := &jobGroup{stages: []*model.StageAttempt{mk(3, nil, 4), mk(4, nil, 8)}}
	groups := []*jobGroup{g1, g2}
	cp := criticalPath(groups, 100, 2, coldStart(groups))
	if want := []int{0, 1, 4}; !slices.Equal(cp.StageIDs, want) || cp.CriticalPathMs != cp.DriverMs+10+30+8 {
		t.Errorf("got stages %v of %d ms (driver %d), want %v of driver+48", cp.StageIDs, cp.CriticalPathMs, cp.DriverMs, want)
	}
}

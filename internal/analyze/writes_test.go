package analyze

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestMarkWrites: output metrics mark the stages that write; a write
// command whose stages report none writes in its last job's result
// stage, not in the broadcast or adaptive stages of the jobs before it.
func TestMarkWrites(t *testing.T) {
	type st struct {
		sql                  int64
		jobs                 []int
		output, shuffleWrite int64
		want                 bool
	}
	for _, c := range []struct {
		name   string
		stages []st
	}{
		{"no output metrics: the last job's result stage", []st{
			{sql: 1, jobs: []int{0}, want: false},                  // a broadcast's collect
			{sql: 1, jobs: []int{1}, shuffleWrite: 9, want: false}, // the write job's map stage
			{sql: 1, jobs: []int{1}, want: true},                   // its result stage
		}},
		{"output metrics say which", []st{
			{sql: 2, jobs: []int{3}, want: false},
			{sql: 2, jobs: []int{4}, output: 1 << 20, want: true},
			{sql: 2, jobs: []int{5}, want: false}, // a later job of the query that wrote nothing
		}},
		{"outside SQL: by output alone", []st{
			{sql: -1, jobs: []int{0}, output: 10, want: true},
			{sql: -1, jobs: []int{1}, want: false},
		}},
		{"a query that does not write", []st{
			{sql: 7, jobs: []int{0}, want: false},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stats := make([]Stage, len(c.stages))
			attempts := make([]*model.StageAttempt, len(c.stages))
			for i, s := range c.stages {
				stats[i] = Stage{StageID: i, SQLExecutionID: s.sql, StageIO: StageIO{OutputBytes: s.output, ShuffleWriteBytes: s.shuffleWrite},
					Outcomes: Outcomes{Attempts: 1}}
				attempts[i] = &model.StageAttempt{StageID: i, JobIDs: s.jobs}
			}
			markWrites(stats, attempts, map[int64]bool{1: true, 2: true, 7: false})
			for i, s := range c.stages {
				if stats[i].IsWrite != s.want {
					t.Errorf("stage %d: got write %v, want %v", i, stats[i].IsWrite, s.want)
				}
			}
		})
	}
}

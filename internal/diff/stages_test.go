package diff

import (
	"fmt"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// TestStagesOf folds stage attempts into stages in submission order,
// leaving out stages Spark skipped and putting each name on one line.
func TestStagesOf(t *testing.T) {
	r := &analyze.Result{Stages: []analyze.Stage{
		{StageID: 2, Name: "count at\n\tQuery.scala:42", SubmissionTime: 300, DurationMs: 5},
		{StageID: 1, Name: "skipped", SubmissionTime: 0},
		{StageID: 0, Name: "map at Job.scala:7", SubmissionTime: 100, DurationMs: 10},
		{StageID: 2, AttemptID: 1, Name: "count at\n\tQuery.scala:42", SubmissionTime: 400, DurationMs: 7},
	}}
	var got []string
	for _, s := range stagesOf(r) {
		got = append(got, fmt.Sprintf("%v %q %d attempts %dms", s.StageIDs, s.Name, s.sums.Attempts, s.sums.DurationMs))
	}
	want := []string{`[0] "map at Job.scala:7" 1 attempts 10ms`, `[2] "count at Query.scala:42" 2 attempts 12ms`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

package historyapi

import (
	"context"
	"sort"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// bigStage is the shared big log's stage attempt with the most tasks.
func bigStage(tb testing.TB) (*API, *model.Attempt, *model.StageAttempt) {
	tb.Helper()
	apps, err := replay.LoadApps(context.Background(), sparktest.Path(tb, "big"), replay.Options{})
	if err != nil || len(apps) == 0 {
		tb.Fatalf("big log: %v", err)
	}
	a := apps[0].Attempts[0]
	s := a.Stages[0]
	for _, x := range a.Stages {
		if len(x.Tasks) > len(s.Tasks) {
			s = x
		}
	}
	return New(apps), a, s
}

// TestTaskListByRuntime: the task list sorted by run time, either way, is
// the stage's tasks ordered by runTimeKey (ties by task id).
func TestTaskListByRuntime(t *testing.T) {
	api, a, s := bigStage(t)
	for _, desc := range []bool{false, true} {
		sortBy := map[bool]string{false: "runtime", true: "-runtime"}[desc]
		got, err := api.TaskList(a, s, TaskListQuery{Length: len(s.Tasks), SortBy: sortBy})
		if err != nil {
			t.Fatal(err)
		}
		want := append([]*model.Task(nil), s.Tasks...)
		sort.SliceStable(want, func(i, j int) bool {
			ki, kj := runTimeKey(want[i]), runTimeKey(want[j])
			if ki != kj {
				return (ki < kj) != desc
			}
			return (want[i].TaskID < want[j].TaskID) != desc
		})
		if len(got) != len(want) {
			t.Fatalf("%s: %d tasks, want %d", sortBy, len(got), len(want))
		}
		for i := range got {
			if got[i].TaskID != want[i].TaskID {
				t.Fatalf("%s: task %d at %d, want %d", sortBy, got[i].TaskID, i, want[i].TaskID)
			}
		}
	}
}

// BenchmarkTaskListByRuntime sorts the big log's largest stage by run
// time for a page of 100 tasks, as the stage page's "longest first" does.
func BenchmarkTaskListByRuntime(b *testing.B) {
	api, a, s := bigStage(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := api.TaskList(a, s, TaskListQuery{Length: 100, SortBy: "-runtime"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.Tasks)), "tasks")
}

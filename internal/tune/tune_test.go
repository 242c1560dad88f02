package tune

import (
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

// TestRegroup checks the partition model's direction and size on stages
// built by hand.
func TestRegroup(t *testing.T) {
	stage := func(tasks int, taskMs, overheadMs, durationMs int64, cores int) *analyze.Stage {
		s := &analyze.Stage{NumTasks: tasks, DurationMs: durationMs}
		s.TaskTimeMs = int64(tasks) * taskMs
		s.SchedulerDelayMs = int64(tasks) * overheadMs
		s.CoresAvailable = cores
		return s
	}
	for _, tc := range []struct {
		name           string
		s              *analyze.Stage
		to, cores      int
		floor          int64 // the shortest task's run time
		wallLo, wallHi int64 // the predicted wall change lies within
		coreSign       int
	}{
		// 200 tasks of 100 ms (20 of it overhead) on 2 cores, 10 s: two
		// tasks of 8,020 ms run in one wave.
		{"too many", stage(200, 100, 20, 10_000, 2), 2, 2, 0, -2_000, -1_900, -1},
		// The same, each task running at least 60 ms whatever it read:
		// merged, the two tasks pay that floor once each, not 100 times,
		// and share out 200 × 20 ms of work: 2,000 + 20 + 60 ms in one
		// wave (and the 0 ms gap) against 10 s.
		{"too many, with a run-time floor", stage(200, 100, 20, 10_000, 2), 2, 2, 60, -7_920, -7_920, -1},
		// 2 tasks of 40 s on 4 cores: 4 tasks of 20 s, one wave.
		{"too few", stage(2, 40_000, 0, 40_000, 4), 4, 4, 0, -20_001, -19_999, 0},
		// Split, a floor stays in the work: a task of 40 s cannot run
		// 20 s of floor in each half.
		{"too few, with a run-time floor", stage(2, 40_000, 0, 40_000, 4), 4, 4, 39_000, -20_001, -19_999, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wall, core := regroup(tc.s, tc.to, tc.cores, tc.floor)
			if wall < tc.wallLo || wall > tc.wallHi {
				t.Errorf("wall change: got %d ms, want within [%d, %d]", wall, tc.wallLo, tc.wallHi)
			}
			if sign(core) != tc.coreSign {
				t.Errorf("core change: got %d ms, want sign %d", core, tc.coreSign)
			}
		})
	}
}

func sign(v int64) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// TestConfOutputs checks the two configuration forms carry every change.
func TestConfOutputs(t *testing.T) {
	p := &Plan{AppID: "app-1", Changes: []Change{{Property: "spark.memory.fraction", From: "0.05", To: "0.6", Why: "spilled\nto disk"}}}
	if got, want := strings.Join(p.ConfLines(), "\n"), "--conf spark.memory.fraction=0.6"; got != want {
		t.Errorf("conf lines: got %q, want %q", got, want)
	}
	d := p.DefaultsConf()
	for _, want := range []string{"# spilled to disk (was 0.05)\n", "spark.memory.fraction", " 0.6\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("spark-defaults.conf fragment %q lacks %q", d, want)
		}
	}
}

// TestCombinedWall checks that two changes acting on one stage do not
// save its time twice, while changes on different stages and outside
// stages add up.
func TestCombinedWall(t *testing.T) {
	spill := Change{Effect: Effect{WallMs: -48_000}, perStage: map[int]int64{3: -30_000, 5: -18_000}}
	broadcast := Change{Effect: Effect{WallMs: -40_000}, perStage: map[int]int64{3: -40_000}}
	count := Change{Effect: Effect{WallMs: -5_000}} // the what-if: no stage
	for _, tc := range []struct {
		name string
		cs   []Change
		want int64
	}{
		{"one change", []Change{spill}, -48_000},
		{"overlapping on stage 3: the larger saving there", []Change{spill, broadcast}, -40_000 - 18_000},
		{"and one on no stage", []Change{spill, broadcast, count}, -40_000 - 18_000 - 5_000},
	} {
		if got := combinedWall(tc.cs); got != tc.want {
			t.Errorf("%s: got %d ms, want %d", tc.name, got, tc.want)
		}
	}
}

// TestRunFloor takes the shortest successful task's run time as what
// every task pays, for tasks that read under the tiny size only.
func TestRunFloor(t *testing.T) {
	sa := &model.StageAttempt{StageID: 3, AttemptID: 0}
	for i, run := range []int64{45, 30, 60, 5} {
		task := &model.Task{TaskID: int64(i), LaunchTime: 1, FinishTime: 100}
		task.SetMetrics(&model.TaskMetrics{ExecutorRunTime: run})
		task.Failed = run == 5 // a failed attempt's run time is no floor
		sa.Tasks = append(sa.Tasks, task)
	}
	a := &model.Attempt{Stages: []*model.StageAttempt{sa}}
	for _, tc := range []struct {
		name     string
		maxBytes int64
		want     int64
	}{
		{"tiny tasks", 4 << 10, 30},
		{"tasks past the tiny size", 2 << 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &analyze.Stage{StageID: 3}
			s.TaskBytes.Max = tc.maxBytes
			if got := runFloor(a, s, 1<<20); got != tc.want {
				t.Errorf("got %d ms, want %d", got, tc.want)
			}
		})
	}
}

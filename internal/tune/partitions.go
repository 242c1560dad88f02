package tune

import (
	"fmt"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/units"
)

// minSaving is the least predicted wall time a partition count change must
// save to be recommended: below it the change is noise.
const minSavingMs = 500

// shufflePartitions sets spark.sql.shuffle.partitions so that the SQL
// stages that read a shuffle with that many tasks (AQE did not coalesce
// them) get about the advisory partition size each, and at least one task
// per core, in whole waves.
func shufflePartitions(in *input) ([]Change, []Kept) {
	const key = "spark.sql.shuffle.partitions"
	n, err := strconv.Atoi(in.setting(key))
	if err != nil || n <= 0 {
		return nil, nil
	}
	if len(in.res.Streaming) > 0 {
		return nil, []Kept{{key, "a streaming query's state is partitioned by it: it cannot change for a checkpointed query"}}
	}
	target := analyze.ParseSize(in.setting("spark.sql.adaptive.advisoryPartitionSizeInBytes"), 1, 64*mib)
	var stages []*analyze.Stage
	var most int64
	for i := range in.res.Stages {
		s := &in.res.Stages[i]
		if s.SQLExecutionID >= 0 && s.ShuffleReadBytes > 0 && s.NumTasks == n && s.Succeeded > 0 {
			stages = append(stages, s)
			most = max(most, s.ShuffleReadBytes)
		}
	}
	if len(stages) == 0 {
		return nil, []Kept{{key, "no SQL stage read a shuffle in that many tasks (AQE coalesced them, or no shuffle)"}}
	}
	cores := in.cores()
	to := int(max(int64(cores), (most+target-1)/target))
	to = (to + cores - 1) / cores * cores // whole waves
	if to*2 > n && n*2 > to {
		return nil, []Kept{{key, fmt.Sprintf("%d is within a factor 2 of %d (%s per partition, %d cores)", n, to, units.Bytes(target), cores)}}
	}
	// Below AQE's minimum partition size a task's run time is what any
	// task pays, not its data's: merging such tasks saves it per task.
	tiny := analyze.ParseSize(in.setting("spark.sql.adaptive.coalescePartitions.minPartitionSize"), 1, mib)
	var e Effect
	var ids []int
	per := map[int]int64{}
	for _, s := range stages {
		w, c := regroup(s, to, cores, runFloor(in.a, s, tiny))
		e.WallMs += w
		e.CoreMs += c
		per[s.StageID] += w
		ids = append(ids, s.StageID)
	}
	if -e.WallMs < minSavingMs {
		return nil, []Kept{{key, fmt.Sprintf("%d partitions would save under %d ms", to, minSavingMs)}}
	}
	e.Basis = "each stage's work (task time less per-task overhead, and, merging tasks that read under AQE's minimum partition size, less the shortest task's run time per task) regrouped into the new task count, in waves of the cores, with the recorded per-task overhead and per-wave scheduling gap"
	why := fmt.Sprintf("%d stages read at most %s of shuffle in %d tasks: %s per task against a %s target on %d cores",
		len(stages), units.Bytes(most), n, units.Bytes(most/int64(n)), units.Bytes(target), cores)
	risk := "fewer, larger tasks: a skewed key weighs more on one task, and each needs more execution memory"
	if to > n {
		risk = "more, smaller tasks and shuffle files: more scheduling; pointless when the input is read in fewer partitions upstream"
	}
	return []Change{{Property: key, From: strconv.Itoa(n), To: strconv.Itoa(to), Why: why, Effect: e, Stages: ids, Risk: risk, perStage: per,
		Evidence: map[string]any{"maxShuffleReadBytes": most, "targetBytes": target, "cores": cores, "stages": len(stages)}}}, nil
}

// regroup predicts a stage's change in wall and core time when its work
// is split into n tasks on cores cores instead of the recorded ones.
// floor is the run time every task pays however little it reads
// (runFloor): merged tasks pay it once each instead of once per recorded
// task, so it leaves the work shared out; split tasks share it as work.
func regroup(s *analyze.Stage, n, cores int, floor int64) (wallMs, coreMs int64) {
	old := int64(max(s.NumTasks, 1))
	c := int64(max(min(s.CoresAvailable, cores), 1))
	if s.CoresAvailable <= 0 {
		c = int64(cores)
	}
	overhead := (s.SchedulerDelayMs + s.DeserializeMs + s.SerializeMs) / old
	work := max(s.TaskTimeMs-old*overhead, 0)
	waves := func(k int64) int64 { return (k + c - 1) / c }
	gap := max(s.DurationMs/waves(old)-s.TaskTimeMs/old, 0)
	k := int64(n)
	var fixed int64
	if k < old {
		fixed = min(max(floor, 0), work/old)
	}
	work -= old * fixed
	task := work/k + overhead + fixed
	newWall := waves(k) * (task + gap)
	return newWall - s.DurationMs, (k - old) * (overhead + fixed)
}

// runFloor is the run time every task of s pays however little it reads
// (opening its shuffle blocks, starting its iterators): the shortest
// executor run time of its successful tasks when none read more than
// tiny bytes, for then their run time is that cost and little of it is
// data; 0 for larger tasks, whose shortest run time is mostly work.
func runFloor(a *model.Attempt, s *analyze.Stage, tiny int64) int64 {
	if s.TaskBytes.Max > tiny {
		return 0
	}
	floor := int64(-1)
	for _, sa := range a.Stages {
		if sa.StageID != s.StageID || sa.AttemptID != s.AttemptID {
			continue
		}
		for _, t := range sa.Tasks {
			if r := max(t.Metrics().ExecutorRunTime, 0); t.Successful() && (floor < 0 || r < floor) {
				floor = r
			}
		}
	}
	return max(floor, 0)
}

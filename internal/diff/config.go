package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

// ConfigChange is one tuned Spark property whose value differs between
// the runs (analyze.Setting: Spark's default where a run set none), with
// what it acts on and what changed there: the stages it links to and
// their change in wall time, which ranks it.
type ConfigChange struct {
	Key           string `json:"key"`
	Before        string `json:"before"`
	After         string `json:"after"`
	BeforeDefault bool   `json:"beforeDefault"` // the before run left it at Spark's default
	AfterDefault  bool   `json:"afterDefault"`
	// Acts says what the property acts on: "stages that read a shuffle".
	Acts string `json:"acts"`
	// Effect says what changed there between the runs, "" when nothing
	// the property acts on changed.
	Effect string `json:"effect"`
	// StageIDs are the after run's stages it links to (the before run's
	// for stages only it ran).
	StageIDs []int `json:"stageIds"`
	// ImpactMs is Σ |change in duration| of those stages: the rank.
	ImpactMs int64 `json:"impactMs"`
}

// configLink is what a group of properties acts on: which stages of the
// comparison, and how to say what changed there.
type configLink struct {
	acts   string
	stages func(c StageChange) bool
	effect func(cs []StageChange, b, a *analyze.Result) string
}

// Which stages a property acts on: those where what it changes changed
// (or that one run only ran).
func partitioned(c StageChange) bool {
	return either(c, func(s *StageSide) bool { return s.ShuffleReadBytes > 0 }) &&
		(c.Status != StageMatched || c.Before.Tasks != c.After.Tasks)
}

func changedMemory(c StageChange) bool {
	return c.Status == StageMatched && (c.Before.SpillBytes != c.After.SpillBytes || c.Before.GCTimeMs != c.After.GCTimeMs)
}

func changedShuffleRead(c StageChange) bool {
	return c.Status != StageMatched && either(c, func(s *StageSide) bool { return s.ShuffleReadBytes > 0 || s.ShuffleWriteBytes > 0 }) ||
		c.Status == StageMatched && apart(c.Before.ShuffleReadBytes, c.After.ShuffleReadBytes)
}

func changedShuffleWrite(c StageChange) bool {
	return c.Status == StageMatched && apart(c.Before.ShuffleWriteBytes, c.After.ShuffleWriteBytes)
}

func anyStage(StageChange) bool { return true }

// apart tells whether two sizes differ by more than a tenth.
func apart(a, b int64) bool { return abs(a-b)*10 > max(a, b) }

func either(c StageChange, f func(*StageSide) bool) bool {
	return c.Before != nil && f(c.Before) || c.After != nil && f(c.After)
}

// configLinks maps each tuned property to what it acts on (Spark's
// configuration and tuning guides). A property missing here is listed
// when it changes, unranked.
func configLinks() map[string]configLink {
	partitions := configLink{"the tasks of stages that read a shuffle", partitioned, tasksEffect}
	memory := configLink{"execution memory: spill and GC", changedMemory, memoryEffect}
	joins := configLink{"join strategy: the shuffles a broadcast saves", changedShuffleRead, joinEffect}
	executors := configLink{"the cores the stages ran on", anyStage, executorsEffect}
	serializer := configLink{"shuffle and cached data size", changedShuffleWrite, shuffleEffect}
	out := map[string]configLink{}
	for _, k := range []string{"spark.sql.shuffle.partitions", "spark.default.parallelism", "spark.sql.adaptive.enabled",
		"spark.sql.adaptive.coalescePartitions.enabled", "spark.sql.adaptive.advisoryPartitionSizeInBytes",
		"spark.sql.adaptive.skewJoin.enabled", "spark.sql.files.maxPartitionBytes"} {
		out[k] = partitions
	}
	for _, k := range []string{"spark.memory.fraction", "spark.memory.storageFraction", "spark.memory.offHeap.enabled",
		"spark.memory.offHeap.size", "spark.executor.memory", "spark.executor.memoryOverhead"} {
		out[k] = memory
	}
	for _, k := range []string{"spark.sql.autoBroadcastJoinThreshold", "spark.sql.adaptive.autoBroadcastJoinThreshold",
		"spark.sql.join.preferSortMergeJoin"} {
		out[k] = joins
	}
	for _, k := range []string{"spark.executor.cores", "spark.executor.instances", "spark.cores.max", "spark.task.cpus",
		"spark.dynamicAllocation.enabled", "spark.dynamicAllocation.minExecutors", "spark.dynamicAllocation.maxExecutors"} {
		out[k] = executors
	}
	out["spark.serializer"] = serializer
	out["spark.shuffle.compress"] = serializer
	return out
}

// ConfigChanges lists the tuned properties whose values differ between
// two runs, most consequential first: ranked by the change in duration of
// the stages each acts on (stages as Compare matched them), then in the
// order of analyze's list. Issue 35 reads it for the causes of a
// regression.
func ConfigChanges(before, after *analyze.Result, stages []StageChange) []ConfigChange {
	afterVals := map[string]analyze.Setting{}
	for _, s := range after.Settings {
		afterVals[s.Key] = s
	}
	links := configLinks()
	out := []ConfigChange{}
	order := map[string]int{}
	for i, b := range before.Settings {
		order[b.Key] = i
		a, ok := afterVals[b.Key]
		if !ok || analyze.SameSetting(b.Key, b.Value, a.Value) {
			continue
		}
		c := ConfigChange{Key: b.Key, Before: b.Value, After: a.Value, BeforeDefault: b.Default, AfterDefault: a.Default,
			StageIDs: []int{}}
		if l, ok := links[b.Key]; ok {
			var linked []StageChange
			for _, s := range stages {
				if l.stages(s) {
					linked = append(linked, s)
					c.ImpactMs += abs(s.DeltaMs)
					c.StageIDs = append(c.StageIDs, stageID(s))
				}
			}
			c.Acts, c.Effect = l.acts, l.effect(linked, before, after)
			if c.Effect == "" { // nothing it acts on changed
				c.ImpactMs, c.StageIDs = 0, []int{}
			}
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(x, y ConfigChange) int {
		if x.ImpactMs != y.ImpactMs {
			return cmp.Compare(y.ImpactMs, x.ImpactMs)
		}
		return cmp.Compare(order[x.Key], order[y.Key])
	})
	return out
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// stageID is the after run's id of a stage change (the before run's for
// a removed stage).
func stageID(c StageChange) int {
	if c.After != nil {
		return c.After.StageIDs[0]
	}
	return c.Before.StageIDs[0]
}

// sums adds up one number of the stages' before and after sides.
func sums(cs []StageChange, f func(*StageSide) int64) (b, a int64) {
	for _, c := range cs {
		if c.Before != nil {
			b += f(c.Before)
		}
		if c.After != nil {
			a += f(c.After)
		}
	}
	return b, a
}

// wall says the stages' change in wall time: "12.3s → 5.1s in 3 stages".
func wall(cs []StageChange) string {
	b, a := sums(cs, func(s *StageSide) int64 { return s.DurationMs })
	return fmt.Sprintf("%s → %s in %s", units.Millis(b), units.Millis(a), plural(len(cs), "stage"))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// tasksEffect says how the task counts of the stages both runs ran
// changed, and how many stages only one run ran.
func tasksEffect(cs []StageChange, _, _ *analyze.Result) string {
	if len(cs) == 0 {
		return ""
	}
	var matched []StageChange
	for _, c := range cs {
		if c.Status == StageMatched {
			matched = append(matched, c)
		}
	}
	var parts []string
	if len(matched) > 0 {
		b, a := sums(matched, func(s *StageSide) int64 { return int64(s.Tasks) })
		parts = append(parts, fmt.Sprintf("tasks %d → %d in %s", b, a, plural(len(matched), "stage")))
	}
	if n := len(cs) - len(matched); n > 0 {
		parts = append(parts, fmt.Sprintf("%s in one run only", plural(n, "stage")))
	}
	return strings.Join(append(parts, wall(cs)), "; ")
}

func memoryEffect(cs []StageChange, _, _ *analyze.Result) string {
	if len(cs) == 0 {
		return ""
	}
	sb, sa := sums(cs, func(s *StageSide) int64 { return s.SpillBytes })
	gb, ga := sums(cs, func(s *StageSide) int64 { return s.GCTimeMs })
	return fmt.Sprintf("disk spill %s → %s, GC %s → %s; %s", units.Bytes(sb), units.Bytes(sa), units.Millis(gb),
		units.Millis(ga), wall(cs))
}

func joinEffect(cs []StageChange, _, _ *analyze.Result) string {
	if len(cs) == 0 {
		return ""
	}
	var parts []string
	added, removed := 0, 0
	for _, c := range cs {
		switch c.Status {
		case StageAdded:
			added++
		case StageRemoved:
			removed++
		}
	}
	if added+removed > 0 {
		parts = append(parts, fmt.Sprintf("%d stage(s) no longer run, %d new", removed, added))
	}
	b, a := sums(cs, func(s *StageSide) int64 { return s.ShuffleReadBytes })
	parts = append(parts, fmt.Sprintf("shuffle read %s → %s", units.Bytes(b), units.Bytes(a)), wall(cs))
	return strings.Join(parts, "; ")
}

func executorsEffect(cs []StageChange, b, a *analyze.Result) string {
	hb, ha := b.Headline, a.Headline
	if hb.MaxExecutors == ha.MaxExecutors && hb.MaxCores == ha.MaxCores || len(cs) == 0 {
		return ""
	}
	return fmt.Sprintf("executors %d → %d, cores %d → %d; %s", hb.MaxExecutors, ha.MaxExecutors, hb.MaxCores, ha.MaxCores, wall(cs))
}

func shuffleEffect(cs []StageChange, _, _ *analyze.Result) string {
	if len(cs) == 0 {
		return ""
	}
	b, a := sums(cs, func(s *StageSide) int64 { return s.ShuffleWriteBytes })
	return fmt.Sprintf("shuffle write %s → %s; %s", units.Bytes(b), units.Bytes(a), wall(cs))
}

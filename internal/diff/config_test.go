package diff

import (
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// TestConfigChanges pins what ConfigChanges lists and in which order:
// only properties whose values differ (sizes by bytes), each linked to
// the stages where what it acts on changed, ranked by those stages'
// change in wall time.
func TestConfigChanges(t *testing.T) {
	set := func(kv ...string) []analyze.Setting {
		var out []analyze.Setting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, analyze.Setting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	before := &analyze.Result{Settings: set("spark.sql.shuffle.partitions", "4", "spark.memory.fraction", "0.05",
		"spark.sql.autoBroadcastJoinThreshold", "-1", "spark.executor.memory", "1g", "spark.serializer", "x.Kryo",
		"spark.speculation", "false")}
	after := &analyze.Result{Settings: set("spark.sql.shuffle.partitions", "8", "spark.memory.fraction", "0.6",
		"spark.sql.autoBroadcastJoinThreshold", "10485760b", "spark.executor.memory", "1024m", "spark.serializer", "x.Kryo",
		"spark.speculation", "true")}
	after.Settings[2].Value = "10m" // 10 MB either way: no change
	before.Settings[2].Value = "10485760b"
	stages := []StageChange{
		// A sort that read a shuffle through 4 tasks and spilled, then 8
		// without spilling: 20 s faster.
		{Status: StageMatched, DeltaMs: -20_000,
			Before: &StageSide{StageIDs: []int{3}, Tasks: 4, ShuffleReadBytes: 100 << 20, SpillBytes: 90 << 20, DurationMs: 30_000},
			After:  &StageSide{StageIDs: []int{2}, Tasks: 8, ShuffleReadBytes: 100 << 20, DurationMs: 10_000}},
		// A map stage that wrote the shuffle: same tasks, GC 2 s less.
		{Status: StageMatched, DeltaMs: -3_000,
			Before: &StageSide{StageIDs: []int{2}, Tasks: 4, ShuffleWriteBytes: 100 << 20, GCTimeMs: 2500, DurationMs: 9000},
			After:  &StageSide{StageIDs: []int{1}, Tasks: 4, ShuffleWriteBytes: 100 << 20, GCTimeMs: 500, DurationMs: 6000}},
	}
	got := ConfigChanges(before, after, stages)
	var keys []string
	for _, c := range got {
		keys = append(keys, c.Key)
	}
	// Memory links both stages (spill and GC changed): 23 s; partitions
	// the sort only: 20 s; speculation acts on nothing ranked.
	if want := []string{"spark.memory.fraction", "spark.sql.shuffle.partitions", "spark.speculation"}; !slices.Equal(keys, want) {
		t.Fatalf("got changes %v, want %v", keys, want)
	}
	for _, c := range []struct {
		i      int
		impact int64
		stages []int
		effect string
	}{
		{0, 23_000, []int{2, 1}, "disk spill 90.0 MiB → 0 B, GC 2.5s → 500ms; 39.0s → 16.0s in 2 stages"},
		{1, 20_000, []int{2}, "tasks 4 → 8 in 1 stage; 30.0s → 10.0s in 1 stage"},
		{2, 0, []int{}, ""},
	} {
		g := got[c.i]
		if g.ImpactMs != c.impact || !slices.Equal(g.StageIDs, c.stages) || g.Effect != c.effect {
			t.Errorf("%s: got impact %d ms, stages %v, effect %q; want %d, %v, %q", g.Key, g.ImpactMs, g.StageIDs, g.Effect,
				c.impact, c.stages, c.effect)
		}
	}
	if g := got[1]; g.Before != "4" || g.After != "8" {
		t.Errorf("partitions: got %s → %s, want 4 → 8", g.Before, g.After)
	}
}

// TestConfigChangesJoin: a broadcast threshold that removes a shuffle
// stage links to it.
func TestConfigChangesJoin(t *testing.T) {
	before := &analyze.Result{Settings: []analyze.Setting{{Key: "spark.sql.autoBroadcastJoinThreshold", Value: "-1"}}}
	after := &analyze.Result{Settings: []analyze.Setting{{Key: "spark.sql.autoBroadcastJoinThreshold", Value: "10m"}}}
	stages := []StageChange{{Status: StageRemoved, DeltaMs: -4000,
		Before: &StageSide{StageIDs: []int{1}, Tasks: 1, ShuffleWriteBytes: 20 << 10, DurationMs: 4000}}}
	got := ConfigChanges(before, after, stages)
	if len(got) != 1 || got[0].ImpactMs != 4000 || !slices.Equal(got[0].StageIDs, []int{1}) ||
		got[0].Effect != "1 stage(s) no longer run, 0 new; shuffle read 0 B → 0 B; 4.0s → 0ms in 1 stage" {
		t.Errorf("got %+v, want the removed shuffle stage linked", got)
	}
}

package tune_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/scenario"
	"github.com/sparkdx/sparkdx/internal/tune"
)

// scenarioPlan tunes the committed log of a scenario on a Spark line.
func scenarioPlan(t *testing.T, name, line string) *tune.Plan {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", name, "spark-"+line, "*.zstd"))
	if len(logs) != 1 {
		t.Fatalf("%s on %s: %d logs, want 1", name, line, len(logs))
	}
	d, err := scenario.Diagnose(context.Background(), logs[0])
	if err != nil {
		t.Fatal(err)
	}
	return tune.Recommend(d.Attempt, d.Result, d.Findings)
}

// TestScenarioPlans checks tune on real-Spark scenario logs: the changes
// each must recommend, with a time-saving prediction where it names one,
// and the properties it must leave alone.
func TestScenarioPlans(t *testing.T) {
	// The properties tune's skew join advice sets.
	skewJoinKeys := []string{"spark.sql.adaptive.enabled", "spark.sql.adaptive.skewJoin.enabled",
		"spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "spark.sql.adaptive.advisoryPartitionSizeInBytes"}
	for _, tc := range []struct {
		scenario string
		want     map[string]string // property → value ("" any)
		faster   []string          // properties whose change must save wall time
		not      []string          // properties it must not change
	}{
		{"spill", map[string]string{"spark.memory.fraction": "0.6"}, []string{"spark.memory.fraction"}, []string{"spark.sql.shuffle.partitions"}},
		{"config-change-before", map[string]string{"spark.memory.fraction": "0.6", "spark.sql.autoBroadcastJoinThreshold": "", "spark.sql.shuffle.partitions": ""},
			[]string{"spark.sql.shuffle.partitions"}, nil},
		{"config-change-after", map[string]string{}, nil, []string{"spark.memory.fraction", "spark.sql.autoBroadcastJoinThreshold"}},
		{"baseline", map[string]string{}, nil, []string{"spark.memory.fraction", "spark.sql.shuffle.partitions", "spark.executor.memory"}},
		{"streaming", map[string]string{}, nil, []string{"spark.sql.shuffle.partitions"}},
		{"python-memory", map[string]string{"spark.executor.memoryOverhead": ""}, nil, []string{"spark.executor.memory"}},
		{"tiny-tasks", map[string]string{}, nil, []string{"spark.cores.max"}},
		// Long tasks on as much input as the others are stragglers, and a
		// skewed RDD aggregation is no join: neither is AQE's to split.
		{"straggler-host", map[string]string{}, nil, skewJoinKeys},
		{"straggler-throttled", map[string]string{}, nil, skewJoinKeys},
		{"data-skew", map[string]string{}, nil, skewJoinKeys},
	} {
		for _, line := range []string{"3.5.9", "4.3.0"} {
			t.Run(tc.scenario+"/"+line, func(t *testing.T) {
				p := scenarioPlan(t, tc.scenario, line)
				got := map[string]tune.Change{}
				for _, c := range p.Changes {
					got[c.Property] = c
					if c.Why == "" || c.Risk == "" || c.Effect.Basis == "" {
						t.Errorf("%s: why %q, risk %q, basis %q: want each said", c.Property, c.Why, c.Risk, c.Effect.Basis)
					}
				}
				for k, v := range tc.want {
					c, ok := got[k]
					switch {
					case !ok:
						t.Errorf("%s: not changed; got changes %v", k, p.Conf())
					case v != "" && c.To != v:
						t.Errorf("%s: got %s, want %s", k, c.To, v)
					}
				}
				for _, k := range tc.faster {
					if c, ok := got[k]; ok && c.Effect.WallMs >= 0 {
						t.Errorf("%s: predicted wall change %+d ms, want a saving", k, c.Effect.WallMs)
					}
				}
				for _, k := range tc.not {
					if c, ok := got[k]; ok {
						t.Errorf("%s: changed %s → %s (%s), want it left alone", k, c.From, c.To, c.Why)
					}
				}
			})
		}
	}
}

package regress

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/cost"
)

// TestHistory judges each run of a job against the runs before it only:
// the first runs have no baseline, a failed run is judged but not kept in
// the baselines after it, a slow run is regressed against the median of
// the successful runs before it, and a priced cost marks the job priced.
func TestHistory(t *testing.T) {
	samples := runs(60_000, 61_000, 59_000, 62_000, 180_000, 60_000)
	samples[3].Succeeded = false // failed: judged, but no baseline's
	money := 0.5
	samples[5].Cost = cost.Usage{CoreHours: 10, Money: &money}
	logs := []string{"l0", "l1", "l2", "l3", "l4", "l5"}
	j := History("job", samples, logs, DefaultConfig())
	tests := []struct {
		run       int
		baseline  int // runs in its baseline; 0: none
		median    float64
		regressed bool
	}{
		{0, 0, 0, false}, {1, 0, 0, false}, {2, 0, 0, false},
		{3, 3, 60_000, false},
		{4, 3, 60_000, true}, // 3×: the failed run 3 is not in the baseline
		{5, 4, 60_500, false},
	}
	if len(j.Runs) != len(tests) {
		t.Fatalf("got %d runs, want %d", len(j.Runs), len(tests))
	}
	for _, tt := range tests {
		r := j.Runs[tt.run]
		if r.Log != logs[tt.run] || r.AppID != samples[tt.run].AppID {
			t.Errorf("run %d: got log %s app %s, want %s %s", tt.run, r.Log, r.AppID, logs[tt.run], samples[tt.run].AppID)
		}
		switch {
		case tt.baseline == 0 && (r.Baseline != nil || r.Verdict != nil):
			t.Errorf("run %d: got baseline %+v, want none", tt.run, r.Baseline)
		case tt.baseline > 0 && (r.Baseline == nil || r.Verdict == nil):
			t.Errorf("run %d: got no baseline, want one of %d runs", tt.run, tt.baseline)
		case tt.baseline > 0 && (r.Baseline.Runs != tt.baseline || r.Baseline.Wall.Median != tt.median || r.Verdict.Regressed != tt.regressed):
			t.Errorf("run %d: got baseline of %d runs, median %v, regressed %v; want %d, %v, %v", tt.run,
				r.Baseline.Runs, r.Baseline.Wall.Median, r.Verdict.Regressed, tt.baseline, tt.median, tt.regressed)
		}
	}
	if j.Latest.AppID != samples[5].AppID || !j.Priced || j.Key != "job" {
		t.Errorf("got key %s, latest %s, priced %v; want job, %s, true", j.Key, j.Latest.AppID, j.Priced, samples[5].AppID)
	}
	if empty := History("none", nil, nil, DefaultConfig()); len(empty.Runs) != 0 || empty.Priced {
		t.Errorf("no runs: got %+v", empty)
	}
}

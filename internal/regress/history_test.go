package regress

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/cost"
)

// TestHistory judges each run of a job against the runs before it only:
// the first runs have no baseline, a failed run is judged but not kept in
// the baselines after it, a slow run is regressed against the median of
// the successful runs before it (a regressed one left out of the baselines
// after it), and a priced cost marks the job priced.
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
		{4, 3, 60_000, true},  // 3×: the failed run 3 is not in the baseline
		{5, 3, 60_000, false}, // the regressed run 4 is left out too
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

// TestHistoryLeavesRegressionsOut judges the wall times of the recorded
// regression series (seconds): three usual runs, then 3× the input, 200
// partitions and half the executors, each slower, then a usual run.
// Counted in the baseline, the first two regressions widened its spread
// (a MAD of 13 s around 49 s) so that the third, 72 s, stayed within 3
// deviations; left out, it is 1.6× a baseline of 45 s. After three
// regressions in a row they count again: the last run is not flagged.
func TestHistoryLeavesRegressionsOut(t *testing.T) {
	walls := []int64{36_000, 45_000, 49_000, 73_000, 88_000, 72_000, 42_000}
	h := runs(walls...)
	logs := make([]string, len(h))
	j := History("job", h, logs, Config{Runs: 10, MinRuns: 3, Ratio: 1.2, Sigmas: 3, MinDeltaMs: 2_000})
	for i, want := range []bool{false, false, false, true, true, true, false} {
		r := j.Runs[i]
		got := r.Verdict != nil && r.Verdict.Regressed
		if got != want {
			t.Errorf("run %d (%d ms): regressed %v, want %v (verdict %+v, baseline %+v)", i, walls[i], got, want, r.Verdict, r.Baseline)
		}
	}
	if b := j.Runs[5].Baseline; b == nil || b.Runs != 3 || b.Wall.Median != 45_000 {
		t.Errorf("half-executors run: got baseline %+v, want the three usual runs, median 45 s", b)
	}
}

package regress

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

func runs(walls ...int64) []Sample {
	out := make([]Sample, len(walls))
	for i, w := range walls {
		out[i] = Sample{Key: "job", AppID: string(rune('a' + i)), StartTime: int64(i), Succeeded: true, WallMs: w, CoreMs: 2 * w}
	}
	return out
}

// TestBaselineAndJudge checks the robust baseline and the verdict on hand
// made histories: an outlier in the history does not move the median,
// and a run is regressed only past the ratio, the deviations and the
// minimum delta together.
func TestBaselineAndJudge(t *testing.T) {
	cfg := DefaultConfig()
	for _, tc := range []struct {
		name       string
		history    []Sample
		wall       int64
		ok         bool
		median     float64
		regressed  bool
		wantSigmas float64 // checked when > 0
	}{
		{"too few runs", runs(60_000, 61_000), 200_000, false, 0, false, 0},
		{"steady, then 2×", runs(60_000, 62_000, 58_000, 61_000, 59_000), 120_000, true, 60_000, true, 60_000 / (madScale * 1000)},
		{"an outlier in the history", runs(60_000, 62_000, 58_000, 300_000, 59_000), 120_000, true, 60_000, true, 0},
		{"within the noise", runs(60_000, 70_000, 50_000, 65_000, 55_000), 74_000, true, 60_000, false, 0},
		{"ratio but a few seconds", runs(6_000, 6_100, 5_900), 9_000, true, 6_000, false, 0},
		{"identical history, slower", runs(60_000, 60_000, 60_000), 90_000, true, 60_000, true, math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, ok := BaselineOf(tc.history, cfg)
			if ok != tc.ok {
				t.Fatalf("baseline: got ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if b.Wall.Median != tc.median {
				t.Errorf("median wall: got %v, want %v", b.Wall.Median, tc.median)
			}
			v := Judge(b, Sample{WallMs: tc.wall}, cfg)
			if v.Regressed != tc.regressed {
				t.Errorf("regressed: got %v (ratio %.2f, %.1f deviations), want %v", v.Regressed, v.Ratio, v.Sigmas, tc.regressed)
			}
			if tc.wantSigmas != 0 && math.Abs(v.Sigmas-tc.wantSigmas) > 1e-9 && !(math.IsInf(tc.wantSigmas, 1) && math.IsInf(v.Sigmas, 1)) {
				t.Errorf("deviations: got %v, want %v", v.Sigmas, tc.wantSigmas)
			}
		})
	}
}

// TestBaselineKeepsLastRuns checks the baseline is the last Runs
// successful runs: failed ones and older ones are left out.
func TestBaselineKeepsLastRuns(t *testing.T) {
	h := runs(10_000, 10_000, 10_000, 50_000, 50_000, 50_000)
	h[5].Succeeded = false
	b, ok := BaselineOf(h, Config{Runs: 3, MinRuns: 3, Ratio: 1.25, Sigmas: 3})
	if !ok || b.Runs != 3 || b.Wall.Median != 50_000 {
		t.Errorf("got ok %v, %d runs, median %v; want the last three successful runs: 10 s, 50 s, 50 s → median 50 s", ok, b.Runs, b.Wall.Median)
	}
	if b.MedianRun != "d" && b.MedianRun != "e" {
		t.Errorf("median run: got %q, want d or e", b.MedianRun)
	}
}

// TestResourcesAndFailures checks the resource and failure causes on
// hand-made analyses.
func TestResourcesAndFailures(t *testing.T) {
	base := &analyze.Result{DurationMs: 60_000, CriticalPath: analyze.CriticalPath{MaxExecutors: 4, MaxCores: 8}}
	half := &analyze.Result{DurationMs: 110_000, CriticalPath: analyze.CriticalPath{MaxExecutors: 2, MaxCores: 4}}
	waited := &analyze.Result{DurationMs: 100_000, CriticalPath: base.CriticalPath, Phases: analyze.Phases{ResourceWaitMs: 30_000}}
	if _, ok := resources(base, base); ok {
		t.Error("same resources: got a resource cause, want none")
	}
	for name, r := range map[string]*analyze.Result{"half the executors": half, "waited": waited} {
		if _, ok := resources(base, r); !ok {
			t.Errorf("%s: got no resource cause, want one", name)
		}
	}
	failed := &analyze.Result{Stages: []analyze.Stage{{StageID: 1, AttemptID: 1, Outcomes: analyze.Outcomes{Failed: 3}}}}
	if c, ok := failures(base, failed); !ok || c.Evidence["failedTasks"] != 3 || c.Evidence["stageRetries"] != 1 {
		t.Errorf("failures: got %v %v, want 3 failed tasks and 1 stage retry", ok, c.Evidence)
	}
	if _, ok := failures(failed, failed); ok {
		t.Error("the same failures as the baseline: got a cause, want none")
	}
}

// TestVerdictJSON encodes a verdict against a history without spread:
// encoding/json refuses +Inf, which emptied a job's whole answer; it is
// written as null and read back as +Inf.
func TestVerdictJSON(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sigmas float64
		want   string
	}{
		{"finite", 4.5, `{"regressed":true,"ratio":1.5,"coreRatio":1.25,"deviations":4.5}`},
		{"no spread", math.Inf(1), `{"regressed":true,"ratio":1.5,"coreRatio":1.25,"deviations":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Verdict{Regressed: true, Ratio: 1.5, CoreRatio: 1.25, Sigmas: tc.sigmas}
			b, err := json.Marshal(Run{Verdict: &v})
			if err != nil {
				t.Fatalf("got %v, want a document", err)
			}
			if !strings.Contains(string(b), tc.want) {
				t.Errorf("got %s, want %s in it", b, tc.want)
			}
			var back Run
			if err := json.Unmarshal(b, &back); err != nil || back.Verdict == nil || *back.Verdict != v {
				t.Errorf("read back: got %+v (%v), want %+v", back.Verdict, err, v)
			}
		})
	}
}

package diagnose

import (
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// The class arm judges the driver's class count after its warm-up: a count
// that grows by half is a warning, doubled critical; what Spark loads while
// it starts, a small absolute growth or too short a span are not judged.
func TestDriverClassGrowth(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	// samples: one a minute, with the class count at each minute.
	samples := func(classes ...int64) *AgentData {
		var d AgentData
		for i, c := range classes {
			d.Driver = append(d.Driver, DriverSample{Time: t0.Add(time.Duration(i) * time.Minute), GCTimeMs: int64(i),
				OldGenUsedBytes: 1 << 20, OldGenMaxBytes: 1 << 30, Classes: c})
		}
		return &d
	}
	flat := func(n int, c int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = c
		}
		return out
	}
	for _, c := range []struct {
		name    string
		agent   *AgentData
		want    Severity
		growth  float64 // evidence classGrowthRatio; -1 none
		finding bool
	}{
		{"doubled after warm-up", samples(append(flat(6, 20_000), 25_000, 30_000, 35_000, 40_000, 40_000, 40_000)...), Critical, 1, true},
		{"grew by half", samples(append(flat(6, 20_000), 25_000, 28_000, 30_000, 30_000, 30_000)...), Warning, 0.5, true},
		{"warm-up only", samples(append([]int64{2_000, 8_000, 15_000, 19_000, 20_000}, flat(10, 20_100)...)...), None, 0, false},
		{"small count", samples(append(flat(6, 3_000), 5_000, 6_000, 7_000, 7_000, 7_000, 7_000)...), None, 0, false},
		{"too short", samples(append(flat(6, 20_000), 40_000, 40_000)...), None, 0, false},
		{"not sampled", samples(flat(15, 0)...), None, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Pass{Result: &analyze.Result{DurationMs: 20 * minute}, Agent: c.agent}
			got := runDriverDegradation(p)
			if len(got) > 0 != c.finding {
				t.Fatalf("got %d findings, want finding=%v: %+v", len(got), c.finding, got)
			}
			if !c.finding {
				return
			}
			if got[0].Severity != c.want {
				t.Errorf("got severity %v, want %v", got[0].Severity, c.want)
			}
			if r, ok := got[0].Evidence["classGrowthRatio"]; !ok || r != c.growth {
				t.Errorf("got classGrowthRatio %v (%v), want %v", r, ok, c.growth)
			}
		})
	}
}

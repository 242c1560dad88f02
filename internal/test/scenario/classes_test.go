package scenario

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// The driver-degradation scenario's agent samples carry the driver's class
// count (hsperfdata java.cls.*): the finding reports it, and the count
// Spark loads while the driver starts (from a few hundred to about ten
// thousand classes in the recorded runs) is not judged a leak: the runs
// are shorter than the warm-up plus the 5 minutes the class arm needs.
func TestDriverDegradationClasses(t *testing.T) {
	var s *Scenario
	for _, x := range loadAll(t) {
		if x.Name == "driver-degradation" {
			s = x
		}
	}
	if s == nil {
		t.Fatal("no driver-degradation scenario")
	}
	for version, path := range s.Logs() {
		t.Run(version, func(t *testing.T) {
			d, err := Diagnose(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			var first, last int64
			agent := readAgent(t, path)
			for _, x := range agent.Driver {
				if x.Classes > 0 {
					if first == 0 {
						first = x.Classes
					}
					last = x.Classes
				}
			}
			if first == 0 || last < first+5000 {
				t.Fatalf("samples' classes: got first %d last %d, want a driver loading thousands while it starts", first, last)
			}
			for _, f := range d.Findings {
				if f.Rule != "driver-degradation" {
					continue
				}
				if got := f.Evidence["classes"]; got != last {
					t.Errorf("evidence classes: got %v, want %d (the last sample)", got, last)
				}
				if got, ok := f.Evidence["classGrowthRatio"]; ok {
					t.Errorf("classGrowthRatio: got %v, want none (warm-up only)", got)
				}
				return
			}
			t.Error("no driver-degradation finding")
		})
	}
}

func readAgent(t *testing.T, logPath string) *diagnose.AgentData {
	t.Helper()
	b, err := os.ReadFile(AgentFile(logPath))
	if err != nil {
		t.Fatal(err)
	}
	var a diagnose.AgentData
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return &a
}

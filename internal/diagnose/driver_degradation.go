package diagnose

import "fmt"

var driverGCShare = Threshold{Metric: "driver GC time ÷ wall time over ≥ 5 min", Warning: 0.10, Critical: 0.15,
	Gate: "agent samples present; cost: the driver's GC time over the samples (wall: the driver schedules nothing " +
		"while it collects) ≥ 5 % of the app and ≥ 1 s, else info (the old-generation arm is a risk of failing, not " +
		"a time cost: not gated)",
	Source: "Dr. Elephant tuning_20190221 DriverHeuristic (severe 0.10, critical 0.15)"}

var driverOldGen = Threshold{Metric: "old generation used after full GC ÷ max", Warning: 0.80, Critical: 0.95,
	Source: "DataFlint MAX_DRIVER_MEMORY_PERCENTAGE_TOO_HIGH_THRESHOLD (95 %); 80 % ours"}

// DriverDegradation reports a long-running driver getting slower (needs sparkdx agent samples).
var DriverDegradation = &Rule{
	ID:     "driver-degradation",
	Title:  "Driver degrading",
	Recipe: "troubleshoot/long-running-driver.md",
	Doc: "A long-running driver spends rising time in GC or keeps its old generation full after full GCs. " +
		"Needs sparkdx agent samples of the driver JVM; silent without them.",
	Thresholds: []Threshold{driverGCShare, driverOldGen},
	Run:        runDriverDegradation,
}

func runDriverDegradation(p *Pass) []Finding {
	if p.Agent == nil || len(p.Agent.Driver) < 2 {
		return nil
	}
	s := p.Agent.Driver
	// Worst GC ratio over any window of at least 5 minutes.
	var gcRatio float64
	j := 0
	for i := 1; i < len(s); i++ {
		for j < i && s[i].Time.Sub(s[j+1].Time).Milliseconds() >= 5*minute {
			j++
		}
		wall := s[i].Time.Sub(s[j].Time).Milliseconds()
		if wall >= 5*minute {
			gcRatio = max(gcRatio, float64(s[i].GCTimeMs-s[j].GCTimeMs)/float64(wall))
		}
	}
	var oldRatio float64
	for _, x := range s {
		if x.FullGC && x.OldGenMaxBytes > 0 {
			oldRatio = max(oldRatio, float64(x.OldGenUsedBytes)/float64(x.OldGenMaxBytes))
		}
	}
	gcSev, oldSev := driverGCShare.Level(gcRatio), driverOldGen.Level(oldRatio)
	if max(gcSev, oldSev) == None {
		return nil
	}
	cost := p.cost(s[len(s)-1].GCTimeMs-s[0].GCTimeMs, 0, "wall: the driver's GC time while the agent sampled it")
	if gcSev > None {
		gcSev = gate(gcSev, cost)
	}
	return []Finding{{Severity: max(gcSev, oldSev), ExecutorIDs: []string{"driver"}, Cost: cost,
		Detail: fmt.Sprintf("The driver spent up to %.0f%% of a 5-minute window in GC; its old generation stayed %.0f%% full after full GCs.",
			100*gcRatio, 100*oldRatio),
		Evidence: map[string]any{"gcRatio": round(gcRatio), "oldGenAfterGcRatio": round(oldRatio), "samples": len(s)}}}
}

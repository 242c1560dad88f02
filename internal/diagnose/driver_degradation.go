package diagnose

import "fmt"

var driverGCShare = Threshold{Metric: "driver GC time ÷ wall time over ≥ 5 min", Warning: 0.10, Critical: 0.15,
	Gate: "agent samples present; cost: the driver's GC time over the samples (wall: the driver schedules nothing " +
		"while it collects) ≥ 5 % of the app and ≥ 1 s, else info (the old-generation arm is a risk of failing, not " +
		"a time cost: not gated)",
	Source: "Dr. Elephant tuning_20190221 DriverHeuristic (severe 0.10, critical 0.15)"}

var driverOldGen = Threshold{Metric: "old generation used after full GC ÷ max", Warning: 0.80, Critical: 0.95,
	Source: "DataFlint MAX_DRIVER_MEMORY_PERCENTAGE_TOO_HIGH_THRESHOLD (95 %); 80 % ours"}

var driverClassGrowth = Threshold{Metric: "driver's classes: growth after its first 5 minutes ÷ the count then", Warning: 0.5, Critical: 1.0,
	Gate: "class counts sampled over ≥ 5 min after the driver's first 5 (Spark loads most of its classes while it starts) " +
		"and ≥ 5,000 classes added",
	Source: "ours: a Spark 4.3 driver holds ~20,000 classes once started, and SQL code generation adds and unloads " +
		"a few per query; a count that keeps growing by half is a class-loader leak (REPL/UDF class loaders, codegen cache off)"}

// DriverDegradation reports a long-running driver getting slower (needs sparkdx agent samples).
var DriverDegradation = &Rule{
	ID:     "driver-degradation",
	Title:  "Driver degrading",
	Recipe: "troubleshoot/long-running-driver.md",
	Doc: "A long-running driver spends rising time in GC, keeps its old generation full after full GCs, " +
		"or keeps loading classes it never unloads. Needs sparkdx agent samples of the driver JVM; silent without them.",
	Thresholds: []Threshold{driverGCShare, driverOldGen, driverClassGrowth},
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
	classes := classGrowth(s)
	gcSev, oldSev := driverGCShare.Level(gcRatio), driverOldGen.Level(oldRatio)
	classSev := None
	if classes.added >= minClassesAdded {
		classSev = driverClassGrowth.Level(classes.ratio)
	}
	if max(gcSev, oldSev, classSev) == None {
		return nil
	}
	cost := p.cost(s[len(s)-1].GCTimeMs-s[0].GCTimeMs, 0, "wall: the driver's GC time while the agent sampled it")
	if gcSev > None {
		gcSev = gate(gcSev, cost)
	}
	detail := fmt.Sprintf("The driver spent up to %.0f%% of a 5-minute window in GC; its old generation stayed %.0f%% full after full GCs.",
		100*gcRatio, 100*oldRatio)
	ev := map[string]any{"gcRatio": round(gcRatio), "oldGenAfterGcRatio": round(oldRatio), "samples": len(s)}
	if classes.last > 0 {
		ev["classes"] = classes.last
		if classes.base > 0 {
			ev["classGrowthRatio"], ev["classesAdded"] = round(classes.ratio), classes.added
			detail += fmt.Sprintf(" It holds %d classes, %+d (%+.0f%%) since its first 5 minutes.", classes.last, classes.added, 100*classes.ratio)
		}
	}
	return []Finding{{Severity: max(gcSev, oldSev, classSev), ExecutorIDs: []string{"driver"}, Cost: cost,
		Detail: detail, Evidence: ev}}
}

// minClassesAdded gates the class arm: a few hundred classes of code
// generation are no leak.
const minClassesAdded = 5000

// classTrend is the driver's class count after its warm-up (base, at the
// first sample 5 minutes after the first) and at the last sample; base is
// 0 when the samples span less than 5 minutes past the warm-up.
type classTrend struct {
	base, last, added int64
	ratio             float64
}

func classGrowth(s []DriverSample) classTrend {
	var out classTrend
	var baseAt, lastAt int
	for i, x := range s {
		if x.Classes <= 0 {
			continue
		}
		out.last, lastAt = x.Classes, i
		if out.base == 0 && x.Time.Sub(s[0].Time).Milliseconds() >= 5*minute {
			out.base, baseAt = x.Classes, i
		}
	}
	if out.base == 0 || s[lastAt].Time.Sub(s[baseAt].Time).Milliseconds() < 5*minute {
		out.base = 0
		return out
	}
	out.added = out.last - out.base
	out.ratio = float64(out.added) / float64(out.base)
	return out
}

package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/units"
)

var skewDuration = Threshold{Metric: "task duration max ÷ median", Warning: 4, Critical: 10,
	Gate: "the stage waited for the longest task: it ran ≥ 0.75 × the stage, or it finished last (within max(1 s, 5 % of " +
		"the stage), as a hot task started late by locality wait does); severity by cost: the wall time the stage " +
		"waited for it beyond the median task (max − median) ≥ 5 % of the app and ≥ 1 s, critical only ≥ 25 %; else info",
	Source: "Dr. Elephant tuning_20190221 StagesAnalyzer (4 and 0.75; its absolute 150 s gate replaced by the cost share " +
		"so that a skew costing most of a short app is reported); DataFlint PartitionSkewAlert (10)"}

var skewBytes = Threshold{Metric: "task bytes (input + shuffle read) max ÷ median", Warning: 5, Critical: 10,
	Gate:   "max ≥ 256 MiB (warning), ≥ 1 GiB (critical); the same cost gate",
	Source: "Spark AQE skewedPartitionFactor 5 / skewedPartitionThresholdInBytes 256MB; critical ours"}

// DataSkew reports stages whose longest tasks (or largest partitions) dwarf the median.
var DataSkew = &Rule{
	ID:         "data-skew",
	Title:      "Data skew",
	Recipe:     "troubleshoot/data-skew-diagnosis.md",
	Doc:        "A stage waits for a few tasks that run far longer, or read far more bytes, than its median task.",
	Thresholds: []Threshold{skewDuration, skewBytes},
	Run:        runDataSkew,
}

func runDataSkew(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.Succeeded < 2 {
			continue
		}
		d := s.TaskDurationMs
		durSev := None
		if s.MaxTaskOverStage >= 0.75 || s.LongestTaskEndsStage {
			durSev = skewDuration.Level(s.SkewDuration)
		}
		b := s.TaskBytes
		bytesSev := None
		switch sev := skewBytes.Level(s.SkewBytes); {
		case sev == Critical && b.Max >= gib:
			bytesSev = Critical
		case sev >= Warning && b.Max >= 256*mib:
			bytesSev = Warning
		}
		sev := max(durSev, bytesSev)
		if sev == None {
			continue
		}
		// Spread evenly, the stage would have ended near its median task:
		// the rest of the longest task is what the skew cost in wall time.
		cost := p.cost(d.Max-d.P50, 0, "wall: the longest task beyond the median task, which the stage waited for")
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
			Detail: fmt.Sprintf("In %s the longest task ran %s against a median of %s (%.1f×) and read %s against a median of %s (%.1f×).",
				stageRef(s), fmtMs(d.Max), fmtMs(d.P50), s.SkewDuration, units.Bytes(b.Max), units.Bytes(b.P50), s.SkewBytes),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "maxTaskMs": d.Max,
				"medianTaskMs": d.P50, "durationMaxOverMedian": round(s.SkewDuration), "stageDurationMs": s.DurationMs,
				"maxTaskOverStage": round(s.MaxTaskOverStage), "longestTaskEndsStage": s.LongestTaskEndsStage, "maxTaskBytes": b.Max, "medianTaskBytes": b.P50,
				"bytesMaxOverMedian": round(s.SkewBytes)}})
	}
	return out
}

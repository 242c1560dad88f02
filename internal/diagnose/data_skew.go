package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/units"
)

// DataSkew reports stages whose longest tasks (or largest partitions) dwarf the median.
var DataSkew = &Rule{
	ID:     "data-skew",
	Title:  "Data skew",
	Recipe: "troubleshoot/data-skew-diagnosis.md",
	Doc:    "A stage waits for a few tasks that run far longer, or read far more bytes, than its median task.",
	Thresholds: []Threshold{
		{Metric: "task duration max ÷ median", Warning: 4, Critical: 10,
			Gate:   "max task ≥ 150 s and ≥ 0.75 × stage duration (else info at ≥ 10 with max > 5 s)",
			Source: "Dr. Elephant tuning_20190221 StagesAnalyzer (4, 150 s, 0.75); DataFlint PartitionSkewAlert (10, 5 s)"},
		{Metric: "task bytes (input + shuffle read) max ÷ median", Warning: 5, Critical: 10,
			Gate:   "max ≥ 256 MiB (warning), ≥ 1 GiB (critical)",
			Source: "Spark AQE skewedPartitionFactor 5 / skewedPartitionThresholdInBytes 256MB; critical ours"}},
	Run: runDataSkew,
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
		if d.Max >= 150*second && s.MaxTaskOverStage >= 0.75 {
			durSev = level(s.SkewDuration, 4, 10)
		} else if s.SkewDuration >= 10 && d.Max > 5*second {
			durSev = Info
		}
		b := s.TaskBytes
		bytesSev := None
		switch {
		case s.SkewBytes >= 10 && b.Max >= gib:
			bytesSev = Critical
		case s.SkewBytes >= 5 && b.Max >= 256*mib:
			bytesSev = Warning
		}
		sev := max(durSev, bytesSev)
		if sev == None {
			continue
		}
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID},
			Detail: fmt.Sprintf("In %s the longest task ran %s against a median of %s (%.1f×) and read %s against a median of %s (%.1f×).",
				stageRef(s), fmtMs(d.Max), fmtMs(d.P50), s.SkewDuration, units.Bytes(b.Max), units.Bytes(b.P50), s.SkewBytes),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "maxTaskMs": d.Max,
				"medianTaskMs": d.P50, "durationMaxOverMedian": round(s.SkewDuration), "stageDurationMs": s.DurationMs,
				"maxTaskOverStage": round(s.MaxTaskOverStage), "maxTaskBytes": b.Max, "medianTaskBytes": b.P50,
				"bytesMaxOverMedian": round(s.SkewBytes)}})
	}
	return out
}

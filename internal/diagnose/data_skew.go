package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

var skewDuration = Threshold{Metric: "longest warm task duration ÷ median", Warning: 4, Critical: 10,
	Gate: "the longest task read ≥ 5× the median task's bytes or records (skewInput; on equal input a long task is a " +
		"straggler: straggler-host); the first tasks on a fresh executor do not count; the stage waited for the " +
		"longest task: it ran ≥ 0.75 × the stage, or it finished last (within max(1 s, 5 % of the stage), as a hot " +
		"task started late by locality wait does); severity by cost: the wall time the stage waited for it beyond the " +
		"median task (max − median) ≥ 5 % of the app and ≥ 1 s, critical only ≥ 25 %; else info",
	Source: "Dr. Elephant tuning_20190221 StagesAnalyzer (4 and 0.75; its absolute 150 s gate replaced by the cost share " +
		"so that a skew costing most of a short app is reported); DataFlint PartitionSkewAlert (10)"}

var skewInput = Threshold{Metric: "longest task's bytes or records ÷ the median task's", Warning: 5,
	Gate:   "needed for the duration arm: a long task on as much data as the others is not skew",
	Source: "Spark AQE skewedPartitionFactor (5)"}

var skewBytes = Threshold{Metric: "task bytes (input + shuffle read) max ÷ median", Warning: 5, Critical: 10,
	Gate:   "max ≥ 256 MiB (warning), ≥ 1 GiB (critical); the same cost gate",
	Source: "Spark AQE skewedPartitionFactor 5 / skewedPartitionThresholdInBytes 256MB; critical ours"}

// DataSkew reports stages whose longest tasks read far more than the median.
var DataSkew = &Rule{
	ID:     "data-skew",
	Title:  "Data skew",
	Recipe: "troubleshoot/data-skew-diagnosis.md",
	Doc: "A stage waits for a few tasks that read far more bytes or records than its median task and run far " +
		"longer, or one partition is far larger than the median. Long tasks on as much data are stragglers " +
		"(straggler-host); a fresh executor's first tasks, which warm it up, are neither.",
	Thresholds: []Threshold{skewDuration, skewInput, skewBytes},
	Run:        runDataSkew,
}

func runDataSkew(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.Succeeded < 2 {
			continue
		}
		d, l := s.TaskDurationMs, s.Longest
		durRatio := analyze.Ratio(l.DurationMs, d.P50)
		durSev := None
		if (s.MaxTaskOverStage >= 0.75 || s.LongestTaskEndsStage) && skewInput.Level(l.InputRatio) != None {
			durSev = skewDuration.Level(durRatio)
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
		longest := max(l.DurationMs, d.Max*boolInt(bytesSev > durSev))
		cost := p.cost(longest-d.P50, 0, "wall: the longest task beyond the median task, which the stage waited for")
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
			Detail: skewDetail(s, longest, bytesSev > durSev),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "maxTaskMs": longest,
				"medianTaskMs": d.P50, "durationMaxOverMedian": round(analyze.Ratio(longest, d.P50)),
				"stageDurationMs": s.DurationMs, "maxTaskOverStage": round(s.MaxTaskOverStage),
				"longestTaskEndsStage": s.LongestTaskEndsStage, "longestTaskBytes": l.Bytes,
				"longestTaskRecords": l.Records, "medianTaskBytes": b.P50, "medianTaskRecords": s.TaskRecords.P50,
				"inputMaxOverMedian": round(l.InputRatio), "maxTaskBytes": b.Max, "bytesMaxOverMedian": round(s.SkewBytes),
				"freshExecutorTasksLeftOut": l.ColdSkipped}})
	}
	return out
}

// skewDetail says what the long task read against the median task, with
// a ratio only where the median read something.
func skewDetail(s *analyze.Stage, longest int64, byBytes bool) string {
	d, l := s.TaskDurationMs, s.Longest
	if byBytes {
		return fmt.Sprintf("In %s the largest task read %s against a median of %s (%.1f×); the longest ran %s against a median of %s.",
			stageRef(s), units.Bytes(s.TaskBytes.Max), units.Bytes(s.TaskBytes.P50), s.SkewBytes, fmtMs(longest), fmtMs(d.P50))
	}
	return fmt.Sprintf("In %s the longest task ran %s against a median of %s (%.1f×) and read %s against a median task's %s.",
		stageRef(s), fmtMs(longest), fmtMs(d.P50), analyze.Ratio(longest, d.P50),
		readText(l.Bytes, l.Records), readAgainst(l.Bytes, s.TaskBytes.P50, l.Records, s.TaskRecords.P50))
}

// readText says what a task read: "7.4 KiB, 2000 records".
func readText(bytes, records int64) string {
	switch {
	case bytes > 0 && records > 0:
		return fmt.Sprintf("%s in %d records", units.Bytes(bytes), records)
	case records > 0:
		return fmt.Sprintf("%d records", records)
	}
	return units.Bytes(bytes)
}

// readAgainst says the median's read with the ratio of each side that has
// a median ("231 B (32.6×) in 25 records (80.0×)"); a median of nothing
// is said, not divided by.
func readAgainst(bytes, medBytes, records, medRecords int64) string {
	part := func(v, med int64, what string) string {
		if med <= 0 {
			return "no " + what
		}
		s := fmt.Sprintf("%d %s", med, what)
		if what == "bytes" {
			s = units.Bytes(med)
		}
		return fmt.Sprintf("%s (%.1f×)", s, float64(v)/float64(med))
	}
	switch {
	case records > 0 || medRecords > 0:
		return part(bytes, medBytes, "bytes") + " in " + part(records, medRecords, "records")
	}
	return part(bytes, medBytes, "bytes")
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

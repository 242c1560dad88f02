package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/units"
)

var spillRatio = Threshold{Metric: "memorySpilledBytes ÷ max(input, shuffle read, shuffle write, output)",
	Warning: 0.10, Critical: 0.50,
	Gate: "cost: the spilling stage's duration ≥ 5 % of the app and ≥ 1 s (else info), ≥ 25 % for critical; info above 3 TB processed",
	Source: "Dr. Elephant tuning_20190221 DEFAULT_EXECUTION_MEMORY_SPILL_THRESHOLDS (0.1, 0.5), 3TB; the cost gate ours " +
		"(it replaces a 1 GiB disk-spill floor that hid every spill of a small application)"}

// Spill reports stages that spilled execution memory to disk in proportion to their data.
var Spill = &Rule{
	ID:         "spill",
	Title:      "Memory spill to disk",
	Recipe:     "troubleshoot/oom-and-spill.md#spill",
	Doc:        "Sorts, aggregations and joins ran out of execution memory and spilled to disk.",
	Thresholds: []Threshold{spillRatio},
	Run:        runSpill,
}

func runSpill(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.MemorySpilledBytes == 0 || gpuSpilled(p, s) {
			continue // nothing spilled, or GPU memory did (gpu-spill)
		}
		data := max(s.InputBytes, s.ShuffleReadBytes, s.ShuffleWriteBytes, s.OutputBytes)
		ratio := 1.0
		if data > 0 {
			ratio = float64(s.MemorySpilledBytes) / float64(data)
		}
		sev := spillRatio.Level(ratio)
		if sev == None {
			continue
		}
		// Spark does not time spilling: the stage's duration bounds it.
		cost := p.cost(s.DurationMs, 0, "wall: the duration of the stage that spilled (an upper bound: Spark does not time spills)")
		sev = gate(sev, cost)
		if data > 3<<40 {
			sev = Info // spilling is expected at this size
		}
		op := spillOperator(p, s.SQLExecutionID)
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID}, Cost: cost,
			Detail: fmt.Sprintf("%s spilled %s from memory (%s on disk) while processing %s (ratio %.2f).",
				stageRef(s), units.Bytes(s.MemorySpilledBytes), units.Bytes(s.DiskSpilledBytes), units.Bytes(data), ratio) +
				photonNote(p, "spill metrics"),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID,
				"memorySpilledBytes": s.MemorySpilledBytes, "diskSpilledBytes": s.DiskSpilledBytes,
				"dataBytes": data, "spillRatio": round(ratio), "operator": op,
				"jvmMetricsIncomplete": p.Result.Plugins.Photon != nil}})
	}
	return out
}

// spillOperator names the SQL plan node with the largest "spill size".
func spillOperator(p *Pass, sqlID int64) string {
	var best string
	var most int64
	for _, x := range p.Result.SQL {
		if x.ID != sqlID {
			continue
		}
		for _, n := range x.Nodes {
			if v := n.Metrics["spill size"]; v > most {
				best, most = n.Name, v
			}
		}
	}
	return best
}

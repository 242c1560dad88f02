package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

var gpuSpillShare = Threshold{Metric: "time the stage's tasks spent spilling GPU memory (to host, to disk, and reading it back) ÷ their run time",
	Warning: 0.10, Critical: 0.30,
	Gate: "RAPIDS Accelerator stages only; cost: the spill time (core) and that time ÷ the stage's cores (wall, at most " +
		"the stage) ≥ 5 % of the app and ≥ 1 s, else info; ≥ 25 % for critical; a stage that reports spilled bytes " +
		"but no spill time is info",
	Source: "ours: the spill rule's 10 %/50 % ratio is of bytes; on a GPU the time the plugin measures is the cost"}

// GPUSpill reports stages of RAPIDS Accelerator applications that spilled
// GPU memory: device to host memory (and on to disk), which is not
// Spark's execution memory spilling to disk and needs GPU advice.
var GPUSpill = &Rule{
	ID:     "gpu-spill",
	Title:  "GPU memory spill",
	Recipe: "troubleshoot/gpu-memory.md",
	Doc: "On the RAPIDS Accelerator, a stage's tasks ran out of GPU memory and spilled buffers from the GPU to host " +
		"memory (and on to disk) or retried after a GPU OOM: Spark counts the device→host spill as \"memory " +
		"spilled\", though nothing may reach disk. Judged by the time the plugin measured spilling and retrying.",
	Thresholds: []Threshold{gpuSpillShare},
	Run:        runGPUSpill,
}

func runGPUSpill(p *Pass) []Finding {
	if p.Result.Plugins.RAPIDS == nil {
		return nil
	}
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		g := s.GPU
		spillMs := g.SpillToHostMs + g.SpillToDiskMs + g.ReadSpillMs
		if spillMs == 0 && !gpuSpilled(p, s) && g.RetryCount+g.SplitRetryCount == 0 {
			continue
		}
		lost := spillMs + g.RetryBlockMs + g.RetryComputationMs
		ratio := analyze.Ratio(lost, s.RunTimeTotalMs)
		sev := gpuSpillShare.Level(ratio)
		if lost == 0 || sev == None {
			sev = Info
		}
		wall := min(lost/int64(max(s.CoresAvailable, 1)), s.DurationMs)
		cost := p.cost(wall, lost, "core: the time the plugin measured spilling GPU memory, reading it back and retrying; wall: that ÷ the stage's cores, at most the stage")
		detail := fmt.Sprintf("%s spilled %s of GPU memory to host memory (%s to disk)", stageRef(s),
			units.Bytes(s.MemorySpilledBytes), units.Bytes(s.DiskSpilledBytes))
		if lost > 0 {
			detail += fmt.Sprintf(", its tasks spending %s spilling, reading spills back and retrying (%.0f%% of their run time)",
				fmtMs(lost), 100*ratio)
		}
		detail += "."
		if n := g.RetryCount + g.SplitRetryCount; n > 0 {
			detail += fmt.Sprintf(" GPU memory ran out %d time(s) and the plugin retried (%d on split input).", n, g.SplitRetryCount)
		}
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost, Detail: detail,
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID,
				"deviceSpilledBytes": s.MemorySpilledBytes, "diskSpilledBytes": s.DiskSpilledBytes,
				"spillToHostMs": g.SpillToHostMs, "spillToDiskMs": g.SpillToDiskMs, "readSpillMs": g.ReadSpillMs,
				"retries": g.RetryCount, "splitRetries": g.SplitRetryCount, "retryBlockMs": g.RetryBlockMs,
				"retryComputationMs": g.RetryComputationMs, "spillShareOfRunTime": round(ratio),
				"semaphoreWaitMs": g.SemaphoreWaitMs}})
	}
	return out
}

// gpuSpilled tells whether a RAPIDS stage's "memory spilled" is GPU
// memory: the stage carries the plugin's metrics, or it spilled nothing
// to disk (Spark's own spill always writes to disk).
func gpuSpilled(p *Pass, s *analyze.Stage) bool {
	return p.Result.Plugins.RAPIDS != nil && s.MemorySpilledBytes > 0 && (s.GPU.Has || s.DiskSpilledBytes == 0)
}

package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// SlowOutputWrite reports time spent writing and committing output.
var SlowOutputWrite = &Rule{
	ID:     "slow-output-write",
	Title:  "Slow output write / commit",
	Recipe: "troubleshoot/s3-write-slow.md",
	Doc: "Wall time in write stages and in the driver-side job commit after the last write task " +
		"(rename-based commits on object stores are O(bytes)).",
	Thresholds: []Threshold{
		{Metric: "phases.outputWriteMs ÷ app duration", Warning: 0.20, Critical: 0.40, Gate: "write ≥ 2 min",
			Source: "ours: commit is pure overhead; no public tool publishes a number"},
		{Metric: "SQL metric job commit time (ms)", Critical: float64(10 * minute), Source: "ours"}},
	Run: runSlowOutputWrite,
}

func runSlowOutputWrite(p *Pass) []Finding {
	r := p.Result
	write := r.Phases.OutputWriteMs
	var jobCommit, taskCommit, files, bytes int64
	for _, x := range r.SQL {
		for _, n := range x.Nodes {
			if !analyze.IsWriteCommand(n.Name) {
				continue
			}
			jobCommit = max(jobCommit, n.Metrics["job commit time"])
			taskCommit = max(taskCommit, n.Metrics["task commit time"])
			files += n.Metrics["number of written files"]
			bytes += n.Metrics["written output"] + n.Metrics["bytes of written output"]
		}
	}
	if r.DurationMs <= 0 {
		return nil
	}
	ratio := float64(write) / float64(r.DurationMs)
	sev := None
	if write >= 2*minute {
		sev = level(ratio, 0.20, 0.40)
	}
	if jobCommit >= 10*minute {
		sev = Critical
	}
	if sev == None {
		return nil
	}
	var stages []int
	for _, s := range r.Stages {
		if s.IsWrite {
			stages = append(stages, s.StageID)
		}
	}
	return []Finding{{Severity: sev, StageIDs: stages,
		Detail: fmt.Sprintf("Writing output took %s of %s (%.0f%%); job commit took %s.",
			fmtMs(write), fmtMs(r.DurationMs), 100*ratio, fmtMs(jobCommit)),
		Evidence: map[string]any{"outputWriteMs": write, "durationMs": r.DurationMs, "ratio": round(ratio),
			"jobCommitMs": jobCommit, "taskCommitMs": taskCommit, "filesWritten": files, "bytesWritten": bytes,
			"committer": r.Config.Committer}}}
}

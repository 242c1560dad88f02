package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

var outputWriteShare = Threshold{Metric: "phases.outputWriteMs ÷ app duration", Warning: 0.20, Critical: 0.40, Gate: "write ≥ 30 s; cost: the write's wall time",
	Source: "ours: commit is pure overhead; no public tool publishes a number"}

var commitTime = Threshold{Metric: "SQL metric job commit time (ms)", Critical: float64(10 * minute), Source: "ours"}

// SlowOutputWrite reports time spent writing and committing output.
var SlowOutputWrite = &Rule{
	ID:     "slow-output-write",
	Title:  "Slow output write / commit",
	Recipe: "troubleshoot/s3-write-slow.md",
	Doc: "Wall time in write stages and in the driver-side job commit after the last write task " +
		"(rename-based commits on object stores are O(bytes)).",
	Thresholds: []Threshold{outputWriteShare, commitTime},
	Run:        runSlowOutputWrite,
}

// minOutputWriteMs is the least write time judged: below it a share of
// a short application is the price of writing anything.
const minOutputWriteMs = 30 * second

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
	if write >= minOutputWriteMs {
		sev = outputWriteShare.Level(ratio)
	}
	if commitTime.Level(float64(jobCommit)) == Critical {
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
	dests := outputSchemes(p)
	detail := fmt.Sprintf("Writing output took %s of %s (%.0f%%); job commit took %s.",
		fmtMs(write), fmtMs(r.DurationMs), 100*ratio, fmtMs(jobCommit))
	recipe := "" // the rule's: object stores, where commits rename by copying
	if len(dests) > 0 && !slices.ContainsFunc(dests, objectStore) {
		// A local or HDFS write: renames are cheap there, the cost is the
		// write itself (files, skew, disks), which the object-store
		// recipe does not cover.
		recipe = "troubleshoot/slow-spark-jobs.md#slow-output-write"
		detail += fmt.Sprintf(" The output goes to %s, not an object store.", strings.Join(dests, ", "))
	}
	cost := p.cost(write, 0, "wall: write stages and the job commit after the last write task")
	if commitTime.Level(float64(jobCommit)) < Critical {
		sev = gate(sev, cost)
	}
	return []Finding{{Severity: sev, StageIDs: stages, Recipe: recipe, Detail: detail, Cost: cost,
		Evidence: map[string]any{"outputWriteMs": write, "durationMs": r.DurationMs, "ratio": round(ratio),
			"jobCommitMs": jobCommit, "taskCommitMs": taskCommit, "filesWritten": files, "bytesWritten": bytes,
			"committer": r.Config.Committer, "destinations": dests}}}
}

// outputPath finds the path a write command names in its plan string:
// "Execute InsertIntoHadoopFsRelationCommand file:/tmp/out, false, …".
var outputPath = regexp.MustCompile(`\b([a-z][a-z0-9+.-]*):/`)

// outputSchemes lists the URI schemes the application's SQL writes went
// to ("s3a", "file", "hdfs"), sorted; none when no write names its path.
func outputSchemes(p *Pass) []string {
	seen := map[string]bool{}
	var walk func(n *model.SQLPlanNode)
	walk = func(n *model.SQLPlanNode) {
		if n == nil {
			return
		}
		if analyze.IsWriteCommand(n.NodeName) {
			if m := outputPath.FindStringSubmatch(n.SimpleString); m != nil {
				seen[m[1]] = true
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	if p.Attempt != nil {
		for _, x := range p.Attempt.SQL {
			walk(x.Plan)
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// objectStore tells whether a URI scheme is an object store's, where a
// commit's rename is a copy.
func objectStore(scheme string) bool {
	switch scheme {
	case "s3", "s3a", "s3n", "gs", "abfs", "abfss", "wasb", "wasbs", "oss", "cos", "cosn", "obs":
		return true
	}
	return false
}

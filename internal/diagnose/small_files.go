package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

var smallFileSize = Threshold{Metric: "average file size (bytes ÷ files) with file count", Warning: 3 * float64(mib),
	Critical: float64(mib), Gate: "> 100 files (warning), > 10 000 files (critical); cost: the duration of the " +
		"query's stages (an upper bound: Spark does not time opening files) ≥ 5 % of the app and ≥ 1 s, else info, " +
		"≥ 25 % for critical; lower is worse",
	Source: "DataFlint MemorySQLInputOutputAlerts (3 MiB, 100 files); critical ours (openCostInBytes × 10 000)"}

// SmallFiles reports scans that open, and writes that produce, many small files.
var SmallFiles = &Rule{
	ID:         "small-files",
	Title:      "Many small files",
	Recipe:     "troubleshoot/slow-spark-jobs.md#small-files",
	Doc:        "A scan reads, or a write produces, many files far below the 128 MiB a task should handle.",
	Thresholds: []Threshold{smallFileSize},
	Run:        runSmallFiles,
}

func runSmallFiles(p *Pass) []Finding {
	var out []Finding
	for _, x := range p.Result.SQL {
		for _, n := range x.Nodes {
			var files, bytes int64
			var kind string
			switch {
			case n.Metrics["number of files read"] > 0:
				kind, files, bytes = "read", n.Metrics["number of files read"], n.Metrics["size of files read"]
			case n.Metrics["number of written files"] > 0:
				kind, files = "write", n.Metrics["number of written files"]
				bytes = n.Metrics["written output"] + n.Metrics["bytes of written output"]
			default:
				continue
			}
			avg := bytes / files
			sev := None
			switch size := smallFileSize.Level(float64(avg)); {
			case files > 10000 && size == Critical:
				sev = Critical
			case files > 100 && size >= Warning:
				sev = Warning
			}
			if sev == None {
				continue
			}
			ids := sqlStages(p.Result, x.ID)
			cost := p.cost(stagesWallMs(p.Result, ids), 0,
				"wall: the duration of the query's stages (an upper bound: Spark does not time opening files)")
			out = append(out, Finding{Severity: gate(sev, cost), StageIDs: ids, Cost: cost,
				Detail: fmt.Sprintf("SQL query %d %s %d files averaging %s (%s in all) in %s.",
					x.ID, map[string]string{"read": "read", "write": "wrote"}[kind], files, units.Bytes(avg), units.Bytes(bytes),
					strings.TrimSpace(n.Name)),
				Evidence: map[string]any{"sqlId": x.ID, "node": n.Name, "direction": kind, "files": files,
					"bytes": bytes, "avgFileBytes": avg}})
		}
	}
	return out
}

// stagesWallMs is the wall time the stages ids ran, their overlaps
// counted once.
func stagesWallMs(r *analyze.Result, ids []int) int64 {
	type span struct{ from, to int64 }
	var spans []span
	for _, s := range r.Stages {
		if containsInt(ids, s.StageID) && s.DurationMs > 0 {
			to := s.CompletionTime
			if to <= 0 {
				to = s.SubmissionTime + s.QueuedMs + s.DurationMs
			}
			spans = append(spans, span{to - s.DurationMs, to})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	var total, end int64
	for i, sp := range spans {
		if i == 0 || sp.from > end {
			total += sp.to - sp.from
			end = sp.to
			continue
		}
		if sp.to > end {
			total += sp.to - end
			end = sp.to
		}
	}
	return total
}

// sqlStages lists the stages that ran for one SQL execution.
func sqlStages(r *analyze.Result, sqlID int64) []int {
	var ids []int
	for _, s := range r.Stages {
		if s.SQLExecutionID == sqlID && (len(ids) == 0 || ids[len(ids)-1] != s.StageID) {
			ids = append(ids, s.StageID)
		}
	}
	return ids
}

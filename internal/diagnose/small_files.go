package diagnose

import (
	"fmt"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

var smallFileSize = Threshold{Metric: "average file size (bytes ÷ files) with file count", Warning: 3 * float64(mib),
	Critical: float64(mib), Gate: "> 100 files (warning), > 10 000 files (critical); lower is worse",
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
			out = append(out, Finding{Severity: sev, StageIDs: sqlStages(p.Result, x.ID),
				Detail: fmt.Sprintf("SQL query %d %s %d files averaging %s (%s in all) in %s.",
					x.ID, map[string]string{"read": "read", "write": "wrote"}[kind], files, units.Bytes(avg), units.Bytes(bytes),
					strings.TrimSpace(n.Name)),
				Evidence: map[string]any{"sqlId": x.ID, "node": n.Name, "direction": kind, "files": files,
					"bytes": bytes, "avgFileBytes": avg}})
		}
	}
	return out
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

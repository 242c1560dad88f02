package analyze

import (
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// OutputWrite is one SQL write of files to a path: where the output went
// and what writing it took, the unit a committer's summary (_SUCCESS) is
// joined to.
type OutputWrite struct {
	SQLExecutionID int64
	Path           string // as the plan names it: "s3a://bucket/out", "file:/tmp/out"
	Format         string // "Parquet", "JSON", … as the plan names it
	StartTime      int64  // the SQL execution's
	EndTime        int64
	// WallMs is the write's wall time: its first job's submission (the
	// execution's start without jobs) to the execution's end, which comes
	// after the driver's job commit.
	WallMs   int64
	JobIDs   []int
	StageIDs []int // its stages that wrote output
	// TaskTimeMs is Σ task time of the write stages: where the tasks'
	// uploads (and a staging or magic committer's task commits) ran.
	TaskTimeMs   int64
	JobCommitMs  int64 // SQL metric "job commit time" (driver)
	TaskCommitMs int64 // SQL metric "task commit time" (Σ tasks)
	Files        int64 // SQL metric "number of written files"
	Bytes        int64 // SQL metric "written output"
}

// fileWriteCommand is the plan node of a write of files by path
// (DataFrameWriter.save, INSERT into a path-based table): its description
// names the output path first.
const fileWriteCommand = "InsertIntoHadoopFsRelationCommand"

// OutputWrites lists the application's writes of files to a path, in the
// order of their SQL executions, with r's numbers for each (r is a's
// analysis).
func OutputWrites(a *model.Attempt, r *Result) []OutputWrite {
	byID := make(map[int64]*SQLExecution, len(r.SQL))
	for i := range r.SQL {
		byID[r.SQL[i].ID] = &r.SQL[i]
	}
	var out []OutputWrite
	for _, x := range a.SQL {
		idx := 0
		var walk func(n *model.SQLPlanNode)
		walk = func(n *model.SQLPlanNode) {
			if n == nil {
				return
			}
			id := idx // flatten's pre-order index of n
			idx++
			if strings.Contains(n.NodeName, fileWriteCommand) {
				if path, format := writeTarget(n.SimpleString); path != "" {
					w := OutputWrite{SQLExecutionID: x.ID, Path: path, Format: format, StartTime: x.StartTime, EndTime: x.EndTime}
					if e := byID[x.ID]; e != nil && id < len(e.Nodes) {
						w.fill(r, e, e.Nodes[id])
					}
					out = append(out, w)
				}
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(x.Plan)
	}
	return out
}

// fill adds the write's jobs, stages, times and metrics.
func (w *OutputWrite) fill(r *Result, e *SQLExecution, n SQLNode) {
	w.JobIDs = e.JobIDs
	first := int64(-1)
	for _, j := range r.Jobs {
		if j.SQLExecutionID == e.ID && j.SubmissionTime > 0 && (first < 0 || j.SubmissionTime < first) {
			first = j.SubmissionTime
		}
	}
	if first < 0 {
		first = e.StartTime
	}
	if e.EndTime > first {
		w.WallMs = e.EndTime - first
	}
	for _, s := range r.Stages {
		if s.SQLExecutionID == e.ID && s.IsWrite {
			w.StageIDs = appendOnce(w.StageIDs, s.StageID)
			w.TaskTimeMs += s.TaskTimeMs
		}
	}
	w.JobCommitMs = n.Metrics["job commit time"]
	w.TaskCommitMs = n.Metrics["task commit time"]
	w.Files = n.Metrics["number of written files"]
	w.Bytes = n.Metrics["written output"] + n.Metrics["bytes of written output"]
}

// writeTarget reads the output path and format from a write command's
// description: "Execute InsertIntoHadoopFsRelationCommand
// s3a://b/out, false, Parquet, [path=s3a://b/out], Overwrite, [id]".
func writeTarget(desc string) (path, format string) {
	_, rest, ok := strings.Cut(desc, fileWriteCommand+" ")
	if !ok {
		return "", ""
	}
	fields := strings.SplitN(rest, ", ", 6)
	path = strings.TrimSpace(fields[0])
	if !strings.Contains(path, ":") && !strings.HasPrefix(path, "/") {
		return "", "" // not a path: a plan Spark printed otherwise
	}
	// After the path: ifPartitionNotExists, the partition columns and
	// bucket spec when there are any ("[p]", "Map(…)"), then the format.
	for _, f := range fields[1 : len(fields)-1] {
		if f != "false" && f != "true" && !strings.HasPrefix(f, "[") && !strings.HasPrefix(f, "Map(") {
			return path, f
		}
	}
	return path, ""
}

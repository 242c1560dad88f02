package analyze_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

// s3aRecording is one real Spark 3.5.9 run writing to MinIO through
// s3a:// (internal/s3a/testdata/README.md).
func s3aRecording(t *testing.T, committer string) (*model.Attempt, *analyze.Result, []*s3a.Summary) {
	t.Helper()
	dir := filepath.Join("..", "s3a", "testdata", "spark-3.5.9", committer)
	logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("%s: %d logs, %v", dir, len(logs), err)
	}
	a, _, err := replay.Log(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sums, errs := s3a.ReadTree(osDirFS(dir), dir, s3a.DefaultLimits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return a, analyze.Analyze(a), sums
}

func TestOutputWritesOfRealRuns(t *testing.T) {
	type want struct {
		path                      string
		files, bytes              int64
		jobCommitMs, taskCommitMs int64
		taskTimeMs, wallMs, stage int64
	}
	for _, c := range []struct {
		committer string
		writes    []want
	}{
		// The numbers are Spark's own: the SQL metrics of the write
		// command and its stage's task times.
		{"magic", []want{
			{path: "s3a://magic/many-files", files: 240, bytes: 271045, jobCommitMs: 3249, taskCommitMs: 47167, taskTimeMs: 129424, wallMs: 68822, stage: 0},
			{path: "s3a://magic/few-files", files: 2, bytes: 56021825, jobCommitMs: 173, taskCommitMs: 339, taskTimeMs: 34561, wallMs: 17976, stage: 1},
		}},
		{"classic", []want{
			{path: "s3a://classic/many-files", files: 240, bytes: 271045, jobCommitMs: 14217, taskCommitMs: 44317, taskTimeMs: 103076, wallMs: 67315, stage: 0},
			{path: "s3a://classic/few-files", files: 2, bytes: 56021825, jobCommitMs: 890, taskCommitMs: 1661, taskTimeMs: 54569, wallMs: 28403, stage: 1},
		}},
	} {
		t.Run(c.committer, func(t *testing.T) {
			a, r, _ := s3aRecording(t, c.committer)
			ws := analyze.OutputWrites(a, r)
			if len(ws) != len(c.writes) {
				t.Fatalf("got %d writes %+v, want %d", len(ws), ws, len(c.writes))
			}
			for i, w := range c.writes {
				g := ws[i]
				got := want{path: g.Path, files: g.Files, bytes: g.Bytes, jobCommitMs: g.JobCommitMs, taskCommitMs: g.TaskCommitMs,
					taskTimeMs: g.TaskTimeMs, wallMs: g.WallMs, stage: -1}
				if len(g.StageIDs) == 1 {
					got.stage = int64(g.StageIDs[0])
				}
				if got != w || g.Format != "Parquet" {
					t.Errorf("write %d: got %+v (%s), want %+v (Parquet)", i, got, g.Format, w)
				}
			}
		})
	}
}

func TestWriteTargetForms(t *testing.T) {
	for _, c := range []struct{ desc, path, format string }{
		{"Execute InsertIntoHadoopFsRelationCommand file:/tmp/out/small, false, Parquet, [path=/tmp/out/small], Overwrite, [id]", "file:/tmp/out/small", "Parquet"},
		{"Execute InsertIntoHadoopFsRelationCommand s3a://b/t, false, [p], JSON, [path=s3a://b/t], Append, [id, p]", "s3a://b/t", "JSON"},
		{"Execute InsertIntoHadoopFsRelationCommand s3a://b/t, Map(p -> 1), false, [p], ORC, [], Overwrite", "s3a://b/t", "ORC"},
		{"Execute InsertIntoHadoopFsRelationCommand", "", ""},
		{"Execute InsertIntoHadoopFsRelationCommand notapath, false, CSV", "", ""},
	} {
		a := &model.Attempt{SQL: []*model.SQLExecution{{ID: 3, Plan: &model.SQLPlanNode{
			NodeName: "Execute InsertIntoHadoopFsRelationCommand", SimpleString: c.desc}}}}
		ws := analyze.OutputWrites(a, &analyze.Result{})
		var path, format string
		if len(ws) == 1 {
			path, format = ws[0].Path, ws[0].Format
		}
		if path != c.path || format != c.format {
			t.Errorf("%q: got %q %q, want %q %q", c.desc, path, format, c.path, c.format)
		}
	}
}

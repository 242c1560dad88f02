package reportv1_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

// TestCommitsOfRealRuns: the reports of the real Spark 3.5.9 runs on
// MinIO (internal/s3a/testdata), with their _SUCCESS summaries, list
// each write beside its summary and validate against the schema.
func TestCommitsOfRealRuns(t *testing.T) {
	s := compileSchema(t)
	for _, c := range []struct {
		committer     string
		materialized  int64 // committer_materialize_file of many-files
		puts          int64 // processRequests object_put_request of many-files
		commitJobMs   int64
		operationsLen int
		requestMs     int64 // the job's timed requests (Hadoop 3.5)
	}{
		{"spark-3.5.9/magic", 240, 538, 2658, 3, 0},
		{"spark-3.5.9/classic", 0, 0, 0, 0, 0},
		{"spark-4.3.0/magic", 240, 722, 4078, 4, 17038},
	} {
		t.Run(c.committer, func(t *testing.T) {
			dir := filepath.Join("..", "s3a", "testdata", c.committer)
			logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
			if err != nil || len(logs) != 1 {
				t.Fatalf("%s: %d logs, %v", dir, len(logs), err)
			}
			a, src, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sums, errs := s3a.ReadTree(os.DirFS(dir), dir, s3a.DefaultLimits)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			src.Summaries = sums
			r := pipeline.Diagnose(a, nil, src, nil).Report
			if err := s.Validate(encode(t, []*reportv1.Report{r})[0]); err != nil {
				t.Fatal(err)
			}
			if len(r.Commits) != 2 {
				t.Fatalf("got %d commits, want 2", len(r.Commits))
			}
			many := r.Commits[0]
			ops := map[string]int64{}
			for _, op := range many.Operations {
				ops[op.Name] = op.Count
				if op.Name == "committer_commit_job" && op.DurationMs != c.commitJobMs {
					t.Errorf("committer_commit_job %d ms, want %d", op.DurationMs, c.commitJobMs)
				}
			}
			if many.RequestMs != c.requestMs {
				t.Errorf("requests %d ms, want %d", many.RequestMs, c.requestMs)
			}
			if many.Path != "s3a://"+filepath.Base(c.committer)+"/many-files" || many.Files != 240 || len(many.Operations) != c.operationsLen ||
				ops["committer_materialize_file"] != c.materialized || many.ProcessRequests["object_put_request"] != c.puts {
				t.Errorf("got %s, %d files, operations %v, process requests %v; want %d operations, %d materialized, %d puts",
					many.Path, many.Files, ops, many.ProcessRequests, c.operationsLen, c.materialized, c.puts)
			}
		})
	}
}

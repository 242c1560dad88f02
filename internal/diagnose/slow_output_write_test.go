package diagnose_test

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestSlowOutputWriteRecipeByDestination: a slow write to S3 points to the
// object-store recipe (commits rename by copying there); one to a local
// or HDFS path points to the recipe about the write itself.
func TestSlowOutputWriteRecipeByDestination(t *testing.T) {
	for _, c := range []struct {
		path, recipe string
		dests        []string
	}{
		{"s3a://bucket/sales", "troubleshoot/s3-write-slow.md", []string{"s3a"}},
		{"file:/data/sales", "troubleshoot/slow-spark-jobs.md#slow-output-write", []string{"file"}},
		{"hdfs://nn:8020/sales", "troubleshoot/slow-spark-jobs.md#slow-output-write", []string{"hdfs"}},
	} {
		t.Run(c.path, func(t *testing.T) {
			f := newApp("sow")
			f.executors(2, 4, 5*sec)
			write := plan{name: "Execute InsertIntoHadoopFsRelationCommand " + c.path + ", false, Parquet",
				children: []plan{{name: "Scan parquet sales"}}}
			f.sqlStart(1, 9*sec, "insert into sales_by_day", write)
			end := f.job(1, 1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 5*mn, 2, 4, func(i int, t *task) {
				t.outBytes, t.outRecs = 512*mb, 5_000_000
			})})
			f.sqlEnd(1, end+sec)
			f.appEnd(end + 10*sec)
			a, _, err := replay.Read(context.Background(), bytes.NewReader(f.bytes()), replay.Options{Name: "sow", Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)}, []*diagnose.Rule{diagnose.SlowOutputWrite})
			if len(fs) != 1 {
				t.Fatalf("got %d findings, want 1:%s", len(fs), dump(fs))
			}
			if fs[0].Recipe != c.recipe || !reflect.DeepEqual(fs[0].Evidence["destinations"], c.dests) {
				t.Errorf("got recipe %s, destinations %v; want %s, %v", fs[0].Recipe, fs[0].Evidence["destinations"], c.recipe, c.dests)
			}
		})
	}
}

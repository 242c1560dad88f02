package diagnose_test

import (
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// s3aCommitterBypassedFixtures: a JSON write of 8 files to s3a:// with
// the magic committer named and Spark's default commit protocol, vs the
// same write with PathOutputCommitProtocol binding the committer.
func s3aCommitterBypassedFixtures() (*fx, *fx) {
	build := func(props ...string) *fx {
		f := newApp("s3b", append([]string{"spark.hadoop.fs.s3a.committer.name", "magic"}, props...)...)
		f.executors(2, 4, 5*sec)
		write := plan{name: "Execute InsertIntoHadoopFsRelationCommand s3a://lake/events, false, JSON, " +
			"[path=s3a://lake/events], Append, [id]", metrics: []accum{{id: 101, name: "number of written files"}},
			children: []plan{{name: "Scan json raw"}}}
		f.sqlStart(1, 9*sec, "save events", write)
		end := f.job(0, 1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 10*sec, 2, 4, func(i int, t *task) {
			t.outBytes, t.outRecs = 64*mb, 500_000
			t.accums = []accum{{101, "number of written files", 1}}
		})})
		f.sqlEnd(1, end+sec)
		f.appEnd(end + 5*sec)
		return f
	}
	return build(), build("spark.sql.sources.commitProtocolClass", "org.apache.spark.internal.io.cloud.PathOutputCommitProtocol")
}

// TestS3ACommitterBypassedOnRealSpark: Spark 3.5.9 writing JSON with the
// magic committer and its default commit protocol wrote 240 and 2 files
// whose _SUCCESS names the magic committer and lists none; with
// PathOutputCommitProtocol (Parquet) and with the classic committer the
// rule stays quiet, summaries or not.
func TestS3ACommitterBypassedOnRealSpark(t *testing.T) {
	for _, c := range []struct {
		committer string
		summaries bool
		want      int    // findings
		says      string // in the first
	}{
		{"magic-json", true, 1, "its _SUCCESS says the magic committer committed none"},
		{"magic-json", false, 1, "writes each task's files straight to the destination"},
		{"magic", true, 0, ""},
		{"magic", false, 0, ""},
		{"classic", true, 0, ""},
	} {
		var fs []diagnose.Finding
		if c.summaries {
			fs = s3aRunWith(t, c.committer, true, diagnose.S3ACommitterBypassed)
		} else {
			fs = s3aRunWith(t, c.committer, false, diagnose.S3ACommitterBypassed)
		}
		if len(fs) != c.want {
			t.Errorf("%s (summaries %v): got %d findings, want %d: %s", c.committer, c.summaries, len(fs), c.want, dump(fs))
			continue
		}
		if c.want == 0 {
			continue
		}
		// The two writes fold into one finding listing both.
		if f := fs[0]; f.Severity != diagnose.Warning || !strings.Contains(f.Detail+fmtParts(f), c.says) || len(f.StageIDs) != 2 {
			t.Errorf("%s: got %v on stages %v: %s %s; want a warning on stages 0 and 1 saying %q", c.committer, f.Severity,
				f.StageIDs, f.Detail, fmtParts(f), c.says)
		}
	}
}

func fmtParts(f diagnose.Finding) string {
	var b strings.Builder
	for _, p := range f.Parts {
		b.WriteString(p.Detail)
	}
	return b.String()
}

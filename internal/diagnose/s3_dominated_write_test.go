package diagnose_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

// s3DominatedWriteFixtures: 8 write tasks of 1 min to s3a:// that spend
// 20 s each in their task commit, then a 1 min job commit (the classic
// committer renaming on S3: 41 % of the write's time), vs 1 s task
// commits and a 5 s job commit (3 %).
func s3DominatedWriteFixtures() (*fx, *fx) {
	build := func(taskCommit, jobCommit int64) *fx {
		f := newApp("s3w")
		f.executors(2, 4, 5*sec)
		write := plan{name: "Execute InsertIntoHadoopFsRelationCommand s3a://lake/events, false, Parquet, " +
			"[path=s3a://lake/events], Append, [id]", metrics: []accum{
			{id: 101, name: "number of written files"}, {id: 102, name: "written output"},
			{id: 104, name: "job commit time"}, {id: 105, name: "task commit time"}},
			children: []plan{{name: "Scan parquet raw"}}}
		f.sqlStart(1, 9*sec, "save events", write)
		end := f.job(0, 1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, mn, 2, 4, func(i int, t *task) {
			t.outBytes, t.outRecs = 64*mb, 500_000
			t.accums = []accum{{101, "number of written files", 1}, {102, "written output", 64 * mb},
				{105, "task commit time", taskCommit}}
		})})
		f.driverAccums(1, [2]int64{104, jobCommit})
		f.sqlEnd(1, end+jobCommit)
		f.appEnd(end + jobCommit + 10*sec)
		return f
	}
	return build(20*sec, mn), build(sec, 5*sec)
}

// s3aRun replays one real Spark 3.5.9 run that wrote to MinIO through
// s3a:// (internal/s3a/testdata/README.md) and, with summaries, joins
// the _SUCCESS files it left.
func s3aRun(t *testing.T, committer string, summaries bool) []diagnose.Finding {
	t.Helper()
	return s3aRunWith(t, committer, summaries, diagnose.S3DominatedWrite)
}

func s3aRunWith(t *testing.T, committer string, summaries bool, rule *diagnose.Rule) []diagnose.Finding {
	t.Helper()
	if !strings.HasPrefix(committer, "spark-") {
		committer = filepath.Join("spark-3.5.9", committer)
	}
	dir := filepath.Join("..", "s3a", "testdata", committer)
	logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("%s: %d logs, %v", dir, len(logs), err)
	}
	a, _, err := replay.Log(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := analyze.Analyze(a)
	p := &diagnose.Pass{Attempt: a, Result: res}
	if summaries {
		sums, errs := s3a.ReadTree(os.DirFS(dir), dir, s3a.DefaultLimits)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		p.Commits = analyze.JoinSummaries(analyze.OutputWrites(a, res), sums)
	}
	return diagnose.Run(p, []*diagnose.Rule{rule})
}

// TestS3DominatedWriteOnRealSpark: the 240 files of ~1.1 KiB cost their
// write 38 % (magic) and 49.9 % (classic) of its task and commit time in
// commits on S3; the 2 files of 27 MiB 1.5 % and 4.6 %, and stay quiet.
func TestS3DominatedWriteOnRealSpark(t *testing.T) {
	for _, c := range []struct {
		committer string
		summaries bool
		share     float64
		storeMs   int64
		advice    string
		summary   bool
	}{
		{"magic", true, 0.38, 47167 + 3249, "fewer, bigger files", true},
		// Without the summary the committer comes from the configuration.
		{"magic", false, 0.38, 47167 + 3249, "fewer, bigger files", false},
		{"classic", true, 0.499, 44317 + 14217, "use an S3A committer", true},
		// Spark 4.3 (Hadoop 3.5): the summary times the uploads too
		// (17.0 s), less than the commits.
		{"spark-4.3.0/magic", true, 0.432, 80992 + 4950, "fewer, bigger files", true},
	} {
		t.Run(c.committer, func(t *testing.T) {
			fs := s3aRun(t, c.committer, c.summaries)
			if len(fs) != 1 {
				t.Fatalf("got %d findings, want 1 (many-files only): %s", len(fs), dump(fs))
			}
			f := fs[0]
			ev := f.Evidence
			bucket := filepath.Base(c.committer)
			if ev["path"] != "s3a://"+bucket+"/many-files" || f.Severity != diagnose.Warning {
				t.Errorf("got %v on %v, want a warning on s3a://%s/many-files", f.Severity, ev["path"], bucket)
			}
			want := map[string]string{"magic": "magic", "classic": "file"}[bucket]
			if ev["committer"] != want || ev["storeMs"] != c.storeMs || ev["share"] != c.share {
				t.Errorf("got committer %v, store %v ms, share %v; want %s, %d ms, %v", ev["committer"], ev["storeMs"],
					ev["share"], want, c.storeMs, c.share)
			}
			if !strings.Contains(f.Detail, c.advice) {
				t.Errorf("detail %q, want advice %q", f.Detail, c.advice)
			}
			if _, ok := ev["summary"]; ok != c.summary {
				t.Errorf("evidence summary present %v, want %v", ok, c.summary)
			}
		})
	}
}

// TestS3DominatedWriteCommitterByVersion: with no committer named and no
// summary, Spark before 4.1 commits with Hadoop's FileOutputCommitter;
// Spark 4.1 turns the magic committer on for S3, so there the finding
// does not guess.
func TestS3DominatedWriteCommitterByVersion(t *testing.T) {
	for _, c := range []struct{ version, committer, says string }{
		{"3.5.1", "file", "use an S3A committer"},
		{"4.1.0", "", "Spark's default committer"},
	} {
		fires, _ := s3DominatedWriteFixtures()
		log := strings.Replace(string(fires.bytes()), `"Spark Version":"3.5.1"`, `"Spark Version":"`+c.version+`"`, 1)
		a, _, err := replay.Read(context.Background(), strings.NewReader(log), replay.Options{Name: c.version, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)}, []*diagnose.Rule{diagnose.S3DominatedWrite})
		if len(fs) != 1 || fs[0].Evidence["committer"] != c.committer || !strings.Contains(fs[0].Detail, c.says) {
			t.Errorf("Spark %s: got %s, want committer %q saying %q", c.version, dump(fs), c.committer, c.says)
		}
	}
}

package analyze_test

import (
	"io/fs"
	"os"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

func osDirFS(dir string) fs.FS { return os.DirFS(dir) }

// TestJoinRealSummaries joins the real runs' _SUCCESS copies (under
// <bucket-less key>/_SUCCESS, as a user copies them) to their writes.
func TestJoinRealSummaries(t *testing.T) {
	for _, c := range []struct {
		committer string
		want      []string // path=committer per joined write
	}{
		{"magic", []string{"s3a://magic/many-files=magic", "s3a://magic/few-files=magic"}},
		{"classic", []string{"s3a://classic/many-files=file", "s3a://classic/few-files=file"}},
	} {
		t.Run(c.committer, func(t *testing.T) {
			a, r, sums := s3aRecording(t, c.committer)
			cs := analyze.JoinSummaries(analyze.OutputWrites(a, r), sums)
			var got []string
			for _, x := range cs {
				got = append(got, x.Write.Path+"="+x.Summary.Committer)
				if x.WriteTimeMs != x.Write.TaskTimeMs+x.Write.JobCommitMs {
					t.Errorf("%s: write time %d, want task %d + commit %d", x.Write.Path, x.WriteTimeMs, x.Write.TaskTimeMs, x.Write.JobCommitMs)
				}
			}
			if len(got) != len(c.want) || got[0] != c.want[0] || got[1] != c.want[1] {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestJoinSummariesMatching(t *testing.T) {
	w := func(id int64, path string, start, end int64) analyze.OutputWrite {
		return analyze.OutputWrite{SQLExecutionID: id, Path: path, StartTime: start, EndTime: end, TaskTimeMs: 900, JobCommitMs: 100}
	}
	writes := []analyze.OutputWrite{
		w(1, "s3a://b/out", 1_000_000, 1_100_000),
		w(2, "s3a://b/out", 2_000_000, 2_100_000), // the same path again
		w(3, "file:/tmp/local", 3_000_000, 3_100_000),
		w(4, "s3a://b/other", 4_000_000, 4_100_000),
	}
	stamped := func(dest string, ts int64, files ...string) *s3a.Summary {
		return &s3a.Summary{Source: dest + "/_SUCCESS", Dest: dest, Committer: "magic", Timestamp: ts, Filenames: files,
			Stats: s3a.IOStatistics{Counters: map[string]int64{"object_put_request": 4},
				Means: map[string]s3a.Mean{"object_put_request.mean": {Samples: 4, Sum: 500}}}}
	}
	for _, c := range []struct {
		name string
		sum  *s3a.Summary
		want int64 // the SQL execution joined; 0: none
	}{
		{"read at the output path", stamped("s3://b/out/", 2_050_000), 2},
		{"stamped during the first write", stamped("s3a://b/out", 1_099_000), 1},
		{"stamped within the slack after the end", stamped("s3a://b/out", 2_150_000), 2},
		{"stamped long after every write", stamped("s3a://b/out", 9_000_000), 0},
		{"copied under bucket and key", stamped("b/other", 4_050_000), 4},
		{"copied under the key", stamped("other", 4_050_000), 4},
		{"by the files it lists, paths in the bucket", stamped("", 4_050_000, "/other/part-0.parquet"), 4},
		{"by full URLs", stamped("", 3_050_000, "file:///tmp/local/part-0.json"), 3},
		{"another directory", stamped("b/elsewhere", 4_050_000), 0},
		{"unstamped: the last write of its path", &s3a.Summary{Dest: "s3a://b/out", Empty: true, Committer: "file"}, 2},
		{"local without scheme", stamped("/tmp/local", 3_050_000), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := analyze.JoinSummaries(writes, []*s3a.Summary{c.sum})
			var got int64
			if len(cs) > 1 {
				t.Fatalf("joined %d writes, want at most 1", len(cs))
			}
			if len(cs) == 1 {
				got = cs[0].Write.SQLExecutionID
				if !c.sum.Empty && (cs[0].RequestMs != 500 || cs[0].RequestCount != 4 || cs[0].Share != 0.5) {
					t.Errorf("requests %d in %d ms, share %v; want 4 in 500 ms, 0.5 of 1000 ms", cs[0].RequestCount, cs[0].RequestMs, cs[0].Share)
				}
			}
			if got != c.want {
				t.Errorf("joined SQL execution %d, want %d", got, c.want)
			}
		})
	}
}

package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

// commitsInput is a report with one write joined to a magic committer's
// summary that timed its requests (as Hadoop ≥ 3.3.5 does) and one to
// the classic committer's empty marker.
func commitsInput() *Input {
	r := &reportv1.Report{Schema: reportv1.Schema, Commits: []reportv1.Commit{
		{Path: "s3a://lake/events", Committer: "magic", Files: 240, Bytes: 271045, WallMs: 68822, TaskTimeMs: 129424,
			TaskCommitMs: 47167, JobCommitMs: 3249, WriteTimeMs: 132673, RequestCount: 900, RequestMs: 60000, Share: 0.452,
			Summary: "s3a://lake/events/_SUCCESS",
			Requests: []s3a.Operation{{Name: "object_put_request", Kind: s3a.KindRequest, Count: 480, DurationMs: 40000, Timed: true},
				{Name: "object_list_request", Kind: s3a.KindRequest, Count: 420, DurationMs: 20000, Timed: true}},
			Operations: []s3a.Operation{{Name: "committer_commit_job", Kind: s3a.KindCommitter, Count: 1, DurationMs: 2658, Timed: true}}},
		{Path: "s3a://lake/old", Committer: "file", Files: 2, Bytes: 1 << 20, WallMs: 1000, TaskTimeMs: 900, TaskCommitMs: 50,
			JobCommitMs: 100, WriteTimeMs: 1000, ProcessRequests: map[string]int64{"object_copy_requests": 4, "store_io_request": 20}},
	}}
	return &Input{Report: r, Result: &analyze.Result{}}
}

func TestCommitsText(t *testing.T) {
	var b bytes.Buffer
	writeCommits(&b, commitsInput().Report.Commits, style{})
	for _, want := range []string{
		"Writes and their committers  2 writes joined to the _SUCCESS summary its committer left",
		"  s3a://lake/events  magic committer · 240 files, 265 KiB · 1m09s wall, 2m09s tasks",
		"    commit    tasks 47.2s, job 3.2s (38% of the write)",
		"    timed     900 requests 1m00s (45%); committer_commit_job 1× 2.7s",
		"    requests  object_put_request 480× 40.0s, object_list_request 420× 20.0s",
		"  s3a://lake/old  classic FileOutputCommitter · 2 files, 1.00 MiB · 1.0s wall, 900ms tasks",
		"    requests  process: object_copy_requests 4\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestCommitsHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, []*Input{commitsInput()}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`-commits"><thead><tr><th>output</th>`, `<td class="name" title="s3a://lake/events/_SUCCESS">s3a://lake/events</td><td>magic committer</td>`,
		"object_put_request 480× 40.0s"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

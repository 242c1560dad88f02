package s3a_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/s3a"
)

// realSummary reads one _SUCCESS that Spark 3.5.9 and Hadoop 3.3.4's S3A
// committers wrote (testdata/README.md).
func realSummary(t *testing.T, rel string) *s3a.Summary {
	t.Helper()
	if !strings.HasPrefix(rel, "spark-") {
		rel = filepath.Join("spark-3.5.9", rel)
	}
	p := filepath.Join("testdata", rel, "_SUCCESS")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := s3a.Read(p, f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadRealSummaries(t *testing.T) {
	for _, c := range []struct {
		rel                     string
		committer               string
		empty                   bool
		files                   int
		commitJobMs, materialMs int64
		materialized            int64
		bytes                   int64
		requests                string // name count×ms, the timed requests
	}{
		// 240 files: Hadoop lists the first 100; the job commit
		// completed 240 uploads (committer_materialize_file).
		{rel: "magic/many-files", committer: "magic", files: 100, commitJobMs: 2658, materialMs: 13069, materialized: 240, bytes: 271045},
		{rel: "magic/few-files", committer: "magic", files: 2, commitJobMs: 96, materialMs: 135, materialized: 2, bytes: 56021825},
		// Hadoop 3.5 (Spark 4.3) times the tasks' store requests too.
		{rel: "spark-4.3.0/magic/many-files", committer: "magic", files: 100, commitJobMs: 4078, materialMs: 14126, materialized: 240,
			bytes: 271765, requests: "multipart_upload_part_put 240×10171 object_multipart_initiated 240×6867"},
		{rel: "spark-4.3.0/magic/few-files", committer: "magic", files: 2, commitJobMs: 64, materialMs: 25, materialized: 2,
			bytes: 56022011, requests: "multipart_upload_part_put 2×1461 object_multipart_initiated 2×120"},
		// The classic FileOutputCommitter leaves an empty marker.
		{rel: "classic/many-files", committer: "file", empty: true},
		{rel: "classic/few-files", committer: "file", empty: true},
	} {
		t.Run(c.rel, func(t *testing.T) {
			s := realSummary(t, c.rel)
			if s.Committer != c.committer || s.Empty != c.empty || len(s.Filenames) != c.files {
				t.Fatalf("got committer %q empty %v files %d, want %q %v %d", s.Committer, s.Empty, len(s.Filenames),
					c.committer, c.empty, c.files)
			}
			if got := s.Bytes(); got != c.bytes {
				t.Errorf("Bytes() = %d, want %d", got, c.bytes)
			}
			ops := map[string]s3a.Operation{}
			for _, op := range s.Operations() {
				ops[op.Name] = op
			}
			if got := ops["committer_commit_job"]; got.DurationMs != c.commitJobMs || c.commitJobMs > 0 && (got.Count != 1 || !got.Timed) {
				t.Errorf("committer_commit_job = %+v, want 1 in %d ms", got, c.commitJobMs)
			}
			if got := ops["committer_materialize_file"]; got.DurationMs != c.materialMs || got.Count != c.materialized {
				t.Errorf("committer_materialize_file = %+v, want %d in %d ms", got, c.materialized, c.materialMs)
			}
			if c.empty {
				return
			}
			if s.Timestamp < 1.7e12 || s.Hostname == "" || s.JobIDSource != "spark.sql.sources.writeJobUUID" {
				t.Errorf("got timestamp %d host %q job id source %q", s.Timestamp, s.Hostname, s.JobIDSource)
			}
			if got := requestNames(s); got != c.requests {
				t.Errorf("requests %q, want %q", got, c.requests)
			}
			if !strings.HasPrefix(s.Filenames[0], "/"+filepath.Base(c.rel)+"/part-") {
				t.Errorf("first file %q, want it under /%s/", s.Filenames[0], filepath.Base(c.rel))
			}
			// The process's S3A filesystem counts its requests in metrics.
			if s.Metrics["store_io_request"] <= 0 || s.Metrics["object_put_request"] <= 0 {
				t.Errorf("metrics store_io_request %d object_put_request %d, want both > 0",
					s.Metrics["store_io_request"], s.Metrics["object_put_request"])
			}
		})
	}
}

func TestOperationsOrderAndKinds(t *testing.T) {
	doc := `{"name":"org.apache.hadoop.fs.s3a.commit.files.SuccessData/1","committer":"directory",
	"iostatistics":{"counters":{"object_put_request":4,"object_put_request.failures":1,"object_list_request":9,
	"object_put_bytes":4096,"object_copy_requests":3,"op_rename":2},
	"maximums":{"object_put_request.max":70},
	"meanstatistics":{"object_put_request.mean":{"samples":4,"sum":200},"object_put_request.failures.mean":{"samples":1,"sum":50},
	"object_list_request.mean":{"samples":9,"sum":90},"op_rename.mean":{"samples":2,"sum":400},
	"committer_commit_job.mean":{"samples":1,"sum":300}}}}`
	s, err := s3a.Parse("x/_SUCCESS", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range s.Operations() {
		got = append(got, op.Name+":"+string(op.Kind))
	}
	want := "op_rename:call committer_commit_job:committer object_put_request:request object_list_request:request object_copy_requests:request"
	if strings.Join(got, " ") != want {
		t.Errorf("operations %q, want %q", strings.Join(got, " "), want)
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests %+v, want 3", reqs)
	}
	if put := reqs[0]; put.Count != 4 || put.Failures != 1 || put.DurationMs != 250 || put.MaxMs != 70 {
		t.Errorf("object_put_request %+v, want 4 ok, 1 failed, 250 ms, max 70 ms", put)
	}
	if copies := reqs[2]; copies.Timed || copies.Count != 3 || copies.DurationMs != 0 {
		t.Errorf("object_copy_requests %+v, want 3 counted, untimed", copies)
	}
	if s.Bytes() != 4096 {
		t.Errorf("Bytes() = %d, want object_put_bytes 4096", s.Bytes())
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name, doc, want string
		notSummary      bool
	}{
		{name: "syntax", doc: `{"name": "org.apache.hadoop.fs.s3a.commit.files.SuccessData/1",}`, want: "offset 64"},
		{name: "cut short", doc: `{"name": "org.apache.hadoop.fs.s3a.commit.files.SuccessData/1", "iostatistics": {`, want: "offset 81"},
		{name: "wrong type", doc: `{"name": "org.apache.hadoop.fs.s3a.commit.files.SuccessData/1", "timestamp": "soon"}`,
			want: "field timestamp"},
		{name: "float counter", doc: `{"name":"org.apache.hadoop.fs.s3a.commit.files.SuccessData/1","iostatistics":{"counters":{"a":1.5}}}`,
			want: "offset"},
		{name: "another JSON", doc: `{"name": "something else"}`, want: `name "something else"`, notSummary: true},
		{name: "no name", doc: `{"committer": "magic"}`, want: "not an S3A", notSummary: true},
		{name: "white space", doc: " \n", want: "only white space", notSummary: true},
		{name: "array", doc: `[1,2]`, want: "offset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s3a.Parse("out/_SUCCESS", []byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "out/_SUCCESS") {
				t.Fatalf("got %v, want an error naming out/_SUCCESS and %q", err, c.want)
			}
			if errors.Is(err, s3a.ErrNotSummary) != c.notSummary {
				t.Errorf("errors.Is(ErrNotSummary) = %v, want %v", !c.notSummary, c.notSummary)
			}
		})
	}
}

func TestReadBound(t *testing.T) {
	big := strings.NewReader(`{"name":"` + strings.Repeat("x", s3a.MaxSummaryBytes) + `"}`)
	if _, err := s3a.Read("huge/_SUCCESS", big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("got %v, want a size error", err)
	}
}

func TestIsRequestCounter(t *testing.T) {
	for name, want := range map[string]bool{
		"object_put_request": true, "object_list_request": true, "action_http_head_request": true,
		"object_multipart_initiated": true, "object_copy_requests": true, "multipart_upload_completed": true,
		"store_io_request": false, "object_put_request_completed": false, "object_put_request_active": false,
		"object_put_bytes": false, "object_delete_objects": false, "object_put_request.failures": false,
		"op_rename": false, "committer_commit_job": false,
	} {
		if got := s3a.IsRequestCounter(name); got != want {
			t.Errorf("IsRequestCounter(%q) = %v, want %v", name, got, want)
		}
	}
}

func requestNames(s *s3a.Summary) string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, fmt.Sprintf("%s %d×%d", r.Name, r.Count, r.DurationMs))
	}
	return strings.Join(out, " ")
}

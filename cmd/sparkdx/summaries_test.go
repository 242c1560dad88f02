package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// s3aRecording is a real Spark 3.5.9 run on MinIO (internal/s3a/testdata).
func s3aRecording(committer string) string {
	return filepath.Join("..", "..", "internal", "s3a", "testdata", "spark-3.5.9", committer)
}

func analyzeJSON(t *testing.T, args ...string) (*reportv1.Report, string) {
	t.Helper()
	code, out, errs := runCLI(append([]string{"analyze", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r reportv1.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return &r, errs
}

// commitsOf says each joined write as path=committer files.
func commitsOf(r *reportv1.Report) string {
	var out []string
	for _, c := range r.Commits {
		out = append(out, c.Path+"="+c.Committer)
	}
	return strings.Join(out, " ")
}

func TestAnalyzeOutputSummariesDir(t *testing.T) {
	dir := s3aRecording("magic")
	r, errs := analyzeJSON(t, "--output-summaries", dir, dir)
	if got, want := commitsOf(r), "s3a://magic/many-files=magic s3a://magic/few-files=magic"; got != want || errs != "" {
		t.Errorf("got %q (stderr %q), want %q", got, errs, want)
	}
	// Without the flag the report has no commits: reports stay as they were.
	r, _ = analyzeJSON(t, dir)
	if r.Commits != nil {
		t.Errorf("without --output-summaries: %d commits, want none", len(r.Commits))
	}
	for _, c := range []struct {
		arg, want string
	}{
		{filepath.Join(dir, "nowhere"), "no such file"},
		{filepath.Join(dir, "many-files", "_SUCCESS"), "not a directory"},
	} {
		if code, _, errs := runCLI("analyze", "--output-summaries", c.arg, dir); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("--output-summaries %s: exit %d, %q; want 2 and %q", c.arg, code, errs, c.want)
		}
	}
}

// TestAnalyzeOutputSummariesS3: --output-summaries auto reads each
// write's _SUCCESS where the plan says it wrote — here a real MinIO
// holding the summaries the real run left, under the same bucket.
func TestAnalyzeOutputSummariesS3(t *testing.T) {
	sparktest.Live(t)
	m := sparktest.StartMinIO(t)
	m.Bucket(t, "classic")
	m.Upload(t, "classic", "many-files", filepath.Join(s3aRecording("classic"), "many-files"))
	t.Setenv("AWS_ACCESS_KEY_ID", m.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", m.SecretKey)
	t.Setenv("AWS_REGION", "us-east-1")
	r, errs := analyzeJSON(t, "--s3-endpoint", "http://"+m.Addr, "--output-summaries", "auto", s3aRecording("classic"))
	// few-files has no _SUCCESS in the bucket: skipped, no warning.
	if got, want := commitsOf(r), "s3a://classic/many-files=file"; got != want || errs != "" {
		t.Errorf("got %q (stderr %q), want %q", got, errs, want)
	}
	var rules []string
	for _, f := range r.Findings {
		rules = append(rules, f.Rule)
	}
	if !strings.Contains(strings.Join(rules, " "), "s3-dominated-write") {
		t.Errorf("findings %v, want s3-dominated-write", rules)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

func TestAPICommand(t *testing.T) {
	dir := sparktest.Path(t, "spark-events")
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"one app", []string{"api", "--log-dir", dir, "/api/v1/applications/local-1422981780767"}, 0,
			`"id" : "local-1422981780767"`, ""},
		{"relative path", []string{"api", "--log-dir", dir, "applications/local-1422981780767/jobs/0"}, 0,
			`"jobId" : 0`, ""},
		{"unknown app", []string{"api", "--log-dir", dir, "applications/foobar"}, 2, "", "404 unknown app: foobar"},
		{"bad quantiles", []string{"api", "--log-dir", dir, "applications/local-1430917381534/stages/0/0/taskSummary?quantiles=foo"},
			2, "", `400 Bad value for parameter "quantiles".  Expected a double, got "foo"`},
		{"no path", []string{"api", "--log-dir", dir}, 2, "", "usage"},
		{"missing dir", []string{"api", "--log-dir", filepath.Join(t.TempDir(), "nope"), "applications"}, 2, "", "nope"},
		{"unreadable log skipped", []string{"api", "--log-dir", badLogDir(t), "applications/app-bad"}, 0, `"id" : "app-bad"`, "skipped logs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(c.args...)
			if code != c.code {
				t.Errorf("got exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if !strings.Contains(out, c.stdout) {
				t.Errorf("got stdout %.200q, want it to contain %q", out, c.stdout)
			}
			if !strings.Contains(errs, c.stderr) {
				t.Errorf("got stderr %q, want it to contain %q", errs, c.stderr)
			}
		})
	}
}

func TestAnalyzeJSONGolden(t *testing.T) {
	log := sparktest.Path(t, "spark-events", "local-1430917381534")
	code, out, errs := runCLI("analyze", "--format", "json", log)
	if code != 0 {
		t.Fatalf("got exit %d, want 0: %s", code, errs)
	}
	// The path is machine-specific; the golden holds the log's base name.
	out = strings.ReplaceAll(out, log, "local-1430917381534")
	if strings.Count(out, "\n") != 1 {
		t.Errorf("got %d lines, want one document on one line", strings.Count(out, "\n"))
	}
	// The golden is indented, for a reviewable diff.
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(out), "", "  "); err != nil {
		t.Fatal(err)
	}
	out = pretty.String()
	golden := filepath.Join("testdata", "analyze_local-1430917381534.json")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if out != string(want) {
		t.Errorf("analyze output differs from %s; rerun with -update and review the diff", golden)
	}
	var r struct {
		Schema string `json:"schema"`
		App    struct {
			ID        string `json:"id"`
			Completed bool   `json:"completed"`
		} `json:"app"`
		Stages []struct {
			StageID  int `json:"stageId"`
			NumTasks int `json:"numTasks"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Schema != "sparkdx.report/v1" || r.App.ID != "local-1430917381534" || !r.App.Completed ||
		len(r.Stages) != 2 || r.Stages[0].NumTasks != 100 {
		t.Errorf("got %+v, want schema v1, completed app local-1430917381534 with 2 stages of which the first has 100 tasks", r)
	}
}

func TestAnalyzeInputErrors(t *testing.T) {
	bad := filepath.Join("testdata", "bad-line.log")
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"strict names file and line", []string{"analyze", "--strict", bad}, 2, "bad-line.log line 2"},
		{"missing file", []string{"analyze", filepath.Join(t.TempDir(), "none.log")}, 2, "none.log"},
		{"no log", []string{"analyze"}, 2, "usage"},
		{"not a spark log", []string{"analyze", filepath.Join("testdata", "not-spark.log")}, 2, "not a Spark event log"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(c.args...)
			if code != c.code || !strings.Contains(errs, c.stderr) {
				t.Errorf("got exit %d stderr %q, want %d and %q", code, errs, c.code, c.stderr)
			}
		})
	}
	t.Run("one unreadable log among several", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "none.log")
		code, out, errs := runCLI("analyze", "--format", "json", bad, missing, filepath.Join("testdata", "not-spark.log"), bad)
		if code != 2 {
			t.Errorf("got exit %d, want 2", code)
		}
		if n := strings.Count(out, `"schema":"sparkdx.report/v1"`); n != 2 {
			t.Errorf("got %d reports on stdout, want the 2 readable logs'", n)
		}
		for _, want := range []string{"none.log: ", "not-spark.log", "2 of the logs could not be read"} {
			if !strings.Contains(errs, want) {
				t.Errorf("got stderr %q, want it to name %q", errs, want)
			}
		}
	})
	t.Run("lenient counts the bad line", func(t *testing.T) {
		code, out, errs := runCLI("analyze", "--format", "json", bad)
		if code != 0 {
			t.Fatalf("got exit %d, want 0: %s", code, errs)
		}
		if !strings.Contains(out, `"badLines":1`) || !strings.Contains(out, `"completed":true`) {
			t.Errorf("got %s, want badLines 1 and a completed app", out)
		}
		if !strings.Contains(errs, "skipped 1 malformed lines") || !strings.Contains(errs, "bad-line.log line 2") {
			t.Errorf("got stderr %q, want a warning naming the file and line", errs)
		}
	})
}

// badLogDir holds one readable log and one that claims zstd but is not.
func badLogDir(t *testing.T) string {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join("testdata", "bad-line.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app-bad"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app-broken.zstd"), []byte("not zstd at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServeRefusesMissingLogDir: a mistyped --event-logs stops serve with
// exit 2 instead of warning forever (issue 14, item 8).
func TestServeRefusesMissingLogDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{filepath.Join(dir, "no-such-dir"), file} {
		code, _, stderr := runCLI("serve", "--event-logs", root, "--data", t.TempDir(), "--listen", "127.0.0.1:0")
		if code != 2 || !strings.Contains(stderr, root) {
			t.Errorf("serve --event-logs %s: exit %d, stderr %q; want 2 naming the directory", root, code, stderr)
		}
	}
}

// TestFlagsAnywhere: flags after the operands are flags, not file names;
// "--" ends them (issue 15, the CLI as a person uses it).
func TestFlagsAnywhere(t *testing.T) {
	log := sparktest.Path(t, "spark-events", "local-1422981780767")
	code, out, errOut := runCLI("analyze", log, "--format", "json")
	if code != 0 || !strings.HasPrefix(strings.TrimSpace(out), "{") && !strings.HasPrefix(strings.TrimSpace(out), "[") {
		t.Fatalf("analyze LOG --format json: exit %d, stdout %.80q, stderr %q", code, out, errOut)
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Errorf("analyze LOG --format json: not JSON: %v", err)
	}
	if code, _, errOut := runCLI("analyze", "--", "--format"); code != 2 || !strings.Contains(errOut, "--format") {
		t.Errorf("after --, --format is a file name: exit %d, stderr %q", code, errOut)
	}
	if got := flagsFirst(flag.NewFlagSet("x", flag.ContinueOnError), []string{"a", "-", "b"}); strings.Join(got, " ") != "-- a - b" {
		t.Errorf("operands: got %q", got)
	}
}

// TestHelpAndVersion: --help prints the command's usage to stdout and
// exits 0 for every command; `sparkdx help CMD` and `sparkdx --version` work.
func TestHelpAndVersion(t *testing.T) {
	for _, c := range commands() {
		if c.name == "version" {
			continue
		}
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			code, out, errOut := runCLI(args...)
			if code != 0 || !strings.Contains(strings.ToLower(out), "usage") || !strings.Contains(out, c.name) || errOut != "" {
				t.Errorf("%q: exit %d, stdout %.60q, stderr %.60q; want 0 and the usage on stdout", args, code, out, errOut)
			}
		}
	}
	for _, args := range [][]string{{"--help"}, {"help"}} {
		if code, out, _ := runCLI(args...); code != 0 || !strings.Contains(out, "sparkdx analyze") {
			t.Errorf("%q: exit %d, stdout %.60q", args, code, out)
		}
	}
	// Flags print as the docs spell them: --name, and -o.
	for _, c := range commands() {
		_, out, _ := runCLI(c.name, "--help")
		if m := regexp.MustCompile(`(?m)^  -[a-z0-9]{2,}`).FindString(out); m != "" {
			t.Errorf("%s --help: %q: want --name", c.name, m)
		}
	}
	if code, out, _ := runCLI("--version"); code != 0 || !strings.HasPrefix(out, "sparkdx ") {
		t.Errorf("--version: exit %d, stdout %q", code, out)
	}
}

// TestAnalyzeStdin: `-` reads a log from standard input, plain or in any
// Spark codec (recognised from its bytes), with the same report as the
// file; `-` twice is a usage error.
func TestAnalyzeStdin(t *testing.T) {
	for _, path := range []string{sparktest.Path(t, "spark-events", "local-1430917381534"),
		sparktest.Path(t, "compressed", "application_1553914137147_0018.zstd")} {
		_, want, _ := runCLI("analyze", "--format", "json", path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"analyze", "--format", "json", "-"}, bytes.NewReader(data), &out, &errb); code != 0 {
			t.Fatalf("%s on stdin: exit %d: %s", filepath.Base(path), code, errb.String())
		}
		// The log section names where the bytes came from; the rest is the same.
		norm := func(s string) string {
			var doc map[string]any
			if err := json.Unmarshal([]byte(s), &doc); err != nil {
				t.Fatalf("%v\n%.200s", err, s)
			}
			delete(doc, "log")
			b, _ := json.Marshal(doc)
			return string(b)
		}
		if norm(out.String()) != norm(want) {
			t.Errorf("%s on stdin: the report differs from the file's", filepath.Base(path))
		}
	}
	code := run(context.Background(), []string{"analyze", "-", "-"}, strings.NewReader(""), io.Discard, io.Discard)
	if code != 2 {
		t.Errorf("- twice: exit %d, want 2", code)
	}
}

// jsonLines decodes analyze --format json output: one document per line.
func jsonLines[T any](t *testing.T, out []byte) []T {
	t.Helper()
	var docs []T
	for i, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var d T
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("line %d: %v\n%.200s", i+1, err, line)
		}
		docs = append(docs, d)
	}
	return docs
}

// TestVersionLine: `sparkdx version` names the version, the commit and
// whether the tree was modified, from the binary's build information.
func TestVersionLine(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"tagged install", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.1"}},
			"sparkdx v0.3.1 (commit unknown (built outside a git checkout, or by go run), go1.26.8, History Server API of Spark 4.3.0)"},
		{"checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: set("vcs.revision", "0123abcd", "vcs.time", "2026-11-27T17:00:00Z", "vcs.modified", "false")},
			"sparkdx devel (commit 0123abcd, committed 2026-11-27T17:00:00Z, go1.26.8, History Server API of Spark 4.3.0)"},
		{"modified checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: set("vcs.revision", "0123abcd", "vcs.modified", "true")},
			"sparkdx devel (commit 0123abcd with uncommitted changes, go1.26.8, History Server API of Spark 4.3.0)"},
		{"no build info", nil, "sparkdx devel (no build information)"},
	} {
		if got := versionLine(c.bi); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

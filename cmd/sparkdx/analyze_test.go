package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestAnalyzeExitCodes(t *testing.T) {
	failing := sparktest.Path(t, "spark-events", "local-1422981780767")               // task-failures: critical (a failed job)
	warning := sparktest.Path(t, "spark-events", "application_1628109047826_1317105") // data-skew and resource-wait: warning
	clean := sparktest.Path(t, "spark-events", "local-1430917381534")
	missing := filepath.Join(t.TempDir(), "nope")
	notLog := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notLog, []byte("{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.0\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sums := filepath.Join(t.TempDir(), "CHECKSUMS")
	if err := os.WriteFile(sums, []byte("faf99fecfa261deb  app-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no fail-on", []string{failing}, 0, ""},
		{"critical at critical", []string{"--fail-on", "critical", failing}, 1, "critical"},
		{"warning at critical", []string{"--fail-on", "critical", warning}, 0, ""},
		{"warning at warning", []string{"--fail-on", "warning", warning}, 1, "warning"},
		{"critical at warning", []string{"--fail-on", "warning", failing}, 1, "critical"},
		{"clean at warning", []string{"--fail-on", "warning", clean}, 0, ""},
		{"several logs", []string{"--fail-on", "critical", clean, failing}, 1, "critical"},
		{"bad fail-on", []string{"--fail-on", "error", clean}, 2, "--fail-on"},
		{"info is no gate", []string{"--fail-on", "info", clean}, 2, "--fail-on"},
		{"missing log", []string{missing}, 2, "nope"},
		{"not a spark log", []string{notLog}, 2, "not a Spark event log"},
		{"no log", nil, 2, "usage"},
		{"dir without logs", []string{t.TempDir()}, 2, "no event log found"},
		{"dir with no spark log", []string{filepath.Dir(sums)}, 2, "no Spark event log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"analyze", "--format", "json"}, c.args...), nil, &out, &errb)
			if code != c.code {
				t.Fatalf("got exit %d, want %d (stderr %q)", code, c.code, errb.String())
			}
			if !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("got stderr %q, want it to mention %q", errb.String(), c.stderr)
			}
			if c.code != 2 {
				jsonLines[map[string]any](t, out.Bytes()) // one document per line
			}
		})
	}
}

// TestAnalyzeDirSkipsOtherFiles: a directory's checksum or other files are
// skipped with a warning; its logs are analyzed.
func TestAnalyzeDirSkipsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"local-1430917381534": src, "SHA256SUMS": []byte("faf99fecfa261deb  spark-events/local-1430917381534\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"analyze", "--format", "json", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("got exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "SHA256SUMS: skipped") || strings.Contains(errb.String(), "malformed") {
		t.Errorf("got stderr %q, want one skip warning for SHA256SUMS", errb.String())
	}
	var one struct{ App struct{ ID string } }
	if err := json.Unmarshal(out.Bytes(), &one); err != nil || one.App.ID != "local-1430917381534" {
		t.Errorf("got %v, app %q; want one report of local-1430917381534", err, one.App.ID)
	}
}

// TestAnalyzeEveryLog runs analyze on every log of the shared data, in
// every codec and layout, and checks the document it prints.
func TestAnalyzeEveryLog(t *testing.T) {
	root := sparktest.Spark(t)
	for _, dir := range []string{"spark-events", "compressed", "big", "extra/historical/spark-events",
		"extra/sql-core-spark-events", "extra/spark-events-broken/last-attempt-incomplete",
		"extra/spark-events-broken/previous-attempt-incomplete"} {
		t.Run(dir, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), []string{"analyze", "--format", "json", filepath.Join(root, dir)}, nil, &out, &errb); code != 0 {
				t.Fatalf("got exit %d: %s", code, errb.String())
			}
			type doc struct {
				Schema string
				App    struct{ ID string }
				Phases map[string]int64
			}
			docs := jsonLines[doc](t, out.Bytes())
			if len(docs) == 0 {
				t.Fatal("no report")
			}
			for _, d := range docs {
				if d.Schema != "sparkdx.report/v1" || d.App.ID == "" || len(d.Phases) != 4 {
					t.Errorf("got schema %q app %q phases %v", d.Schema, d.App.ID, d.Phases)
				}
			}
		})
	}
}

// TestAnalyzeProfiles: --profiles DIR adds the profile of the log's
// application (a file named by its id) to the text report, and leaves
// another application's file alone; a missing DIR is a usage error.
func TestAnalyzeProfiles(t *testing.T) {
	log := sparktest.Path(t, "spark-events", "app-20200706201101-0003")
	dir := t.TempDir()
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"profile", "--format", "collapsed", "-o",
		filepath.Join(dir, "app-20200706201101-0003-driver.cpu.collapsed"), "../../internal/jfr/testdata/work.jfr"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("profile: exit %d: %s", code, stderr.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "app-20200706201101-00031-1.cpu.collapsed"), []byte("stage 2;Other.app 1000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run(context.Background(), []string{"analyze", "--profiles", dir, log}, nil, &out, &stderr); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(out.String(), "966 cpu samples from profile app-20200706201101-0003-driver.cpu.collapsed") ||
		!strings.Contains(out.String(), "100.0 % in Work.spin") || strings.Contains(out.String(), "Other.app") {
		t.Errorf("got report:\n%s\nwant work.jfr's 966 samples, stage 1 all in Work.spin, nothing of the other application", out.String())
	}
	if code := run(context.Background(), []string{"analyze", "--profiles", filepath.Join(dir, "nope"), log}, nil, io.Discard, &stderr); code != 2 {
		t.Errorf("missing --profiles dir: got exit %d, want 2", code)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestDiffCommand(t *testing.T) {
	before := sparktest.Path(t, "spark-events", "app-20161115172038-0000")
	after := sparktest.Path(t, "spark-events", "app-20161116163331-0000")
	lz4 := sparktest.Path(t, "compressed", "local-1430917381534.lz4")
	plain := sparktest.Path(t, "spark-events", "local-1430917381534")
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of stdout
		stderr string
	}{
		{"text", []string{"--format", "text", before, after}, 0, "after is 90% faster", ""},
		{"json", []string{"--format", "json", before, after}, 0, `"schema": "sparkdx.diff/v1"`, ""},
		{"text by default", []string{before, after}, 0, "after is 90% faster", ""},
		{"html", []string{"--format", "html", before, after}, 0, "Before → after", ""},
		{"same log in two codecs", []string{"--format", "text", plain, lz4}, 0, "same wall time", ""},
		{"one log", []string{before}, 2, "", "usage"},
		{"three logs", []string{before, after, after}, 2, "", "usage"},
		{"a directory of logs", []string{sparktest.Path(t, "spark-events"), after}, 2, "", "want exactly one"},
		{"bad format", []string{"--format", "xml", before, after}, 2, "", "--format"},
		{"missing log", []string{before, "/nonexistent/log"}, 2, "", "/nonexistent/log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"diff"}, c.args...), nil, &out, &errb)
			if code != c.code {
				t.Fatalf("got exit %d, want %d (stderr %q)", code, c.code, errb.String())
			}
			if !strings.Contains(out.String(), c.stdout) {
				t.Errorf("got stdout %.300q, want it to contain %q", out.String(), c.stdout)
			}
			if !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("got stderr %q, want it to mention %q", errb.String(), c.stderr)
			}
		})
	}
}

// TestDiffCodecsAgree compares a plain log with its lz4 copy: every stage
// matches by name with no change.
func TestDiffCodecsAgree(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"diff", "--format", "json",
		sparktest.Path(t, "spark-events", "app-20200706201101-0003"),
		sparktest.Path(t, "compressed", "app-20200706201101-0003.zstd")}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("got exit %d: %s", code, errb.String())
	}
	var d struct {
		Stages []struct {
			Status, Match string
			DeltaMs       int64
		}
		Findings struct{ Added, Removed []any }
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Stages) != 3 {
		t.Errorf("got %d stages, want 3", len(d.Stages))
	}
	for _, s := range d.Stages {
		if s.Status != "matched" || s.Match != "name" || s.DeltaMs != 0 {
			t.Errorf("got %+v, want matched by name with no change", s)
		}
	}
	if len(d.Findings.Added)+len(d.Findings.Removed) != 0 {
		t.Errorf("got findings added %v removed %v, want none", d.Findings.Added, d.Findings.Removed)
	}
}

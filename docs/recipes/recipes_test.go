package recipes

import (
	"strings"
	"testing"
)

func TestSection(t *testing.T) {
	doc := "# Title\nintro\n## spill\nA\n### details\nB\n```\n## not a heading\n```\n## next\nC\n"
	for _, c := range []struct {
		anchor, want string
		ok           bool
	}{
		{"spill", "## spill\nA\n### details\nB\n```\n## not a heading\n```\n", true},
		{"details", "### details\nB\n```\n## not a heading\n```\n", true},
		{"next", "## next\nC\n", true},
		{"title", doc, true},
		{"not-a-heading", "", false},
		{"missing", "", false},
	} {
		got, ok := Section(doc, c.anchor)
		if got != c.want || ok != c.ok {
			t.Errorf("Section(#%s) = %q, %v; want %q, %v", c.anchor, got, ok, c.want, c.ok)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Exit codes":               "exit-codes",
		"task-failures":            "task-failures",
		"Spill (memory → disk)":    "spill-memory--disk",
		"`spark.task.maxFailures`": "sparktaskmaxfailures",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRead(t *testing.T) {
	s, err := Read("troubleshoot/oom-and-spill.md#spill")
	if err != nil || !strings.HasPrefix(s, "## ") || !strings.Contains(strings.ToLower(s), "spill") {
		t.Errorf("got %.80q, %v; want the spill section", s, err)
	}
	if _, err := Read("troubleshoot/oom-and-spill.md#no-such-anchor"); err == nil || !strings.Contains(err.Error(), "no heading") {
		t.Errorf("got %v, want a missing-heading error", err)
	}
	if _, err := Read("troubleshoot/nope.md"); err == nil {
		t.Error("got no error for a missing recipe")
	}
	if s, ok := Rule("data-skew"); !ok || !strings.Contains(s, "**Thresholds**") {
		t.Errorf("got %.80q, %v; want rules.md's data-skew section", s, ok)
	}
}

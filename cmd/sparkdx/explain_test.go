package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// TestExplain: every rule explains itself from the binary (its doc, each
// threshold's source, its rules.md section and its recipe section); an
// unknown rule is a usage error naming the known ones.
func TestExplain(t *testing.T) {
	var list bytes.Buffer
	if code := run(context.Background(), []string{"explain"}, nil, &list, &bytes.Buffer{}); code != 0 {
		t.Fatalf("explain: exit %d", code)
	}
	for _, r := range diagnose.All {
		if !strings.Contains(list.String(), r.ID+" ") {
			t.Errorf("explain lists no %s", r.ID)
		}
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"explain", r.ID}, nil, &out, &errb); code != 0 {
			t.Errorf("explain %s: exit %d: %s", r.ID, code, errb.String())
			continue
		}
		anchor := r.Recipe[strings.LastIndexByte(r.Recipe, '/')+1:]
		for _, want := range []string{r.Doc, r.Thresholds[0].Source, "## " + r.ID + "\n", "Recipe: docs/recipes/" + r.Recipe} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("explain %s: no %q in\n%.400s", r.ID, want, out.String())
			}
		}
		if !strings.Contains(out.String(), "\n#") || len(out.String()) < 500 {
			t.Errorf("explain %s: the recipe (%s) looks missing:\n%.400s", r.ID, anchor, out.String())
		}
	}
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"explain", "skew"}, nil, &bytes.Buffer{}, &errb); code != 2 ||
		!strings.Contains(errb.String(), `unknown rule "skew"`) || !strings.Contains(errb.String(), "data-skew") {
		t.Errorf("explain skew: exit %d, stderr %q; want 2 naming the rules", code, errb.String())
	}
}

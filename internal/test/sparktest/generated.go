package sparktest

import (
	"os"
	"strings"
	"testing"
)

// GeneratedSection checks that the part of the file at path from the marker
// begin to the marker end (both included) is want, which a test generates
// from the code (a rules table in the docs); with update it rewrites that
// part instead. what names the section in messages.
func GeneratedSection(t testing.TB, path, begin, end, want, what string, update bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated %s (between %q and %q)", path, what, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	got := doc[i : j+len(end)]
	if got == want {
		return
	}
	if update {
		if err := os.WriteFile(path, []byte(doc[:i]+want+doc[j+len(end):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the %s differs from what the code gives; rerun with -update\ngot:\n%s\nwant:\n%s", path, what, got, want)
}

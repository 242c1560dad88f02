package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// everyLogDir holds every log of the shared data, in every codec and layout.
var everyLogDir = []string{"spark-events", "compressed", "big", "extra/historical/spark-events",
	"extra/sql-core-spark-events", "extra/spark-events-broken/last-attempt-incomplete",
	"extra/spark-events-broken/previous-attempt-incomplete"}

// appIDs runs analyze --format json on dir and returns the app ids.
func appIDs(t *testing.T, dir string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"analyze", "--format", "json", dir}, nil, &out, &errb); code != 0 {
		t.Fatalf("json: got exit %d: %s", code, errb.String())
	}
	docs := jsonLines[struct{ App struct{ ID string } }](t, out.Bytes())
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.App.ID)
	}
	return ids
}

// TestAnalyzeTextAndHTMLEveryLog runs analyze --format text and html on
// every shared log: each succeeds and shows every application.
func TestAnalyzeTextAndHTMLEveryLog(t *testing.T) {
	root := sparktest.Spark(t)
	for _, dir := range everyLogDir {
		t.Run(dir, func(t *testing.T) {
			path := filepath.Join(root, dir)
			ids := appIDs(t, path)
			for _, format := range []string{"text", "html"} {
				var out, errb bytes.Buffer
				if code := run(context.Background(), []string{"analyze", "--format", format, path}, nil, &out, &errb); code != 0 {
					t.Fatalf("%s: got exit %d: %s", format, code, errb.String())
				}
				page := out.String()
				if format == "html" && !strings.HasPrefix(page, "<!DOCTYPE html>") {
					t.Errorf("html: got %.40q, want an HTML document", page)
				}
				if format == "text" && strings.Contains(page, "\x1b") {
					t.Errorf("text: got escape codes in output that is not a terminal")
				}
				for _, id := range ids {
					if !strings.Contains(page, id) {
						t.Errorf("%s: got no mention of app %s", format, id)
					}
				}
				if errb.Len() != 0 {
					t.Errorf("%s: got stderr %q, want none (no progress bar off a terminal)", format, errb.String())
				}
			}
		})
	}
}

func TestAnalyzeOutputFile(t *testing.T) {
	log := sparktest.Path(t, "spark-events", "local-1430917381534")
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "html", "-o", filepath.Join(dir, "r.html")}, "<!DOCTYPE html>"},
		{[]string{"--format", "text", "-o", filepath.Join(dir, "r.txt")}, "local-1430917381534"},
		{[]string{"--format", "json", "-o", filepath.Join(dir, "r.json")}, `{"schema":"sparkdx.report/v1"`},
		{[]string{"-o", filepath.Join(dir, "default.txt")}, "local-1430917381534 · "},
	} {
		t.Run(filepath.Base(c.args[len(c.args)-1]), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), append(append([]string{"analyze"}, c.args...), log), nil, &out, &errb); code != 0 {
				t.Fatalf("got exit %d: %s", code, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("got %d bytes on stdout, want none with -o", out.Len())
			}
			got, err := os.ReadFile(c.args[len(c.args)-1])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), c.want) {
				t.Errorf("got %.80q in the file, want %q", got, c.want)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"analyze", "-o", filepath.Join(dir, "no", "such", "dir"), log}, nil, &out, &errb); code != 2 {
		t.Errorf("unwritable -o: got exit %d, want 2", code)
	}
	if code := run(context.Background(), []string{"analyze", "--format", "xml", log}, nil, &out, &errb); code != 2 {
		t.Errorf("--format xml: got exit %d, want 2", code)
	}
}

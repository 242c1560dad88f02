package server

import (
	"path/filepath"
	"strings"
	"testing"
)

// The app page of a Structured Streaming application lists its queries:
// the streaming-behind scenario's real Spark 3.5 log, where "behind"
// processes about 70 % of its input and "steady" keeps up.
func TestAppPageStreaming(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "scenarios", "streaming-behind", "spark-3.5.9")
	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	code, body := ts.get(t, "/apps/app-20261125234152-0000")
	if code != 200 {
		t.Fatalf("app page: got %d: %s", code, body)
	}
	page := string(body)
	i := strings.Index(page, `<table id="streaming">`)
	if i < 0 {
		t.Fatal("app page has no streaming table")
	}
	table := page[i:]
	table = table[:strings.Index(table, "</table>")]
	for _, want := range []string{"<b>steady</b>", "<b>behind</b>", "<td class=\"num\">483</td>", "<td class=\"num\">337</td>"} {
		if !strings.Contains(table, want) {
			t.Errorf("streaming table lacks %s:\n%s", want, table)
		}
	}
	if strings.Count(table, "<tr>") != 3 { // the header and two queries
		t.Errorf("streaming table: got %d rows, want a header and 2 queries:\n%s", strings.Count(table, "<tr>"), table)
	}
}

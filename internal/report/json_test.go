package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// TestWriteJSONLines writes two reports as analyze --format json does:
// one document a line, and log text such as "<console>" left as it is
// rather than escaped for HTML.
func TestWriteJSONLines(t *testing.T) {
	var rs []*reportv1.Report
	for _, rel := range []string{"spark-events/local-1430917381534", "spark-events/local-1422981759269"} {
		rs = append(rs, realInput(t, rel).Report)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, rs); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != len(rs) {
		t.Fatalf("got %d reports written as %d lines, want one line each", len(rs), len(lines))
	}
	for i, line := range lines {
		var doc struct {
			Schema string `json:"schema"`
			Log    struct {
				Path string `json:"path"`
			} `json:"log"`
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if doc.Schema != reportv1.Schema || doc.Log.Path != rs[i].Log.Path {
			t.Errorf("line %d: got schema %q log %q, want %q and %q", i+1, doc.Schema, doc.Log.Path, reportv1.Schema, rs[i].Log.Path)
		}
	}
	if !bytes.Contains(b.Bytes(), []byte("<console>")) {
		t.Errorf("got no literal <console> in the JSON (escaped for HTML?), want the stage names as the log has them")
	}
}

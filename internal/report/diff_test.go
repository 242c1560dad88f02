package report

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// compare diffs two renderer inputs as sparkdx diff does.
func compare(before, after *Input) *diff.Diff {
	return diff.Compare(diff.Input{Report: before.Report, Result: before.Result},
		diff.Input{Report: after.Report, Result: after.Result})
}

// editedInput replays local-1430917381534 after edit rewrote its lines.
func editedInput(t *testing.T, edit func(line string) (string, bool)) *Input {
	t.Helper()
	log := sparktest.EditedLog(t, edit, "spark-events", "local-1430917381534")
	a, stats, err := replay.Read(context.Background(), strings.NewReader(log), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := analyze.Analyze(a)
	fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All)
	return NewInput(a, res, fs, reportv1.Log{Path: "edited", Bytes: stats.Bytes, Events: stats.Events})
}

// TestDiffGolden renders the text diff of two real runs of the same
// shell job (task failures in both), and checks the JSON carries the
// schema and both runs.
func TestDiffGolden(t *testing.T) {
	b := realInput(t, "spark-events/app-20161115172038-0000")
	a := realInput(t, "spark-events/app-20161116163331-0000")
	d := compare(b, a)
	var txt bytes.Buffer
	if err := WriteDiffText(&txt, d, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "diff", "app-20161115172038-0000__app-20161116163331-0000.txt", txt.Bytes())
	if bytes.IndexByte(txt.Bytes(), 0x1b) >= 0 {
		t.Errorf("got escape codes in the text diff without colour")
	}
	var js bytes.Buffer
	if err := WriteDiffJSON(&js, d); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "before", "after", "phases", "totals", "matching", "stages", "findings"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("got no %q key in the diff JSON", k)
		}
	}
	if doc["schema"] != diff.Schema {
		t.Errorf("got schema %v, want %s", doc["schema"], diff.Schema)
	}
}

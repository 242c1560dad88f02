package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// TestCompareShiftedCopy diffs a log with its copy shifted in time
// (local-1425081759269 is local-1422981759269 with every timestamp
// moved): every stage matches by name and nothing changes.
func TestCompareShiftedCopy(t *testing.T) {
	b := realInput(t, "spark-events/local-1422981759269")
	a := realInput(t, "spark-events/local-1425081759269")
	d := Compare(b, a)
	if d.Before.StartTime == d.After.StartTime {
		t.Fatalf("got the same start time %d, want the shifted copy", d.Before.StartTime)
	}
	if len(d.Stages) == 0 {
		t.Fatal("got no stages")
	}
	for _, s := range d.Stages {
		if s.Status != StageMatched || s.Match != diff.MatchName || s.DeltaMs != 0 {
			t.Errorf("stage %+v: got status %s match %q delta %d, want matched by name, no change", s.Before, s.Status, s.Match, s.DeltaMs)
		}
		if s.Before != nil && s.After != nil && s.Before.StageIDs[0] != s.After.StageIDs[0] {
			t.Errorf("got stage %d matched to %d, want the same id in a copy", s.Before.StageIDs[0], s.After.StageIDs[0])
		}
	}
	for _, c := range append(d.Phases, d.Totals...) {
		if c.Delta != 0 {
			t.Errorf("%s: got delta %d, want 0", c.Name, c.Delta)
		}
	}
	if n := len(d.Findings.Added) + len(d.Findings.Removed); n != 0 {
		t.Errorf("got %d findings added or removed, want 0: %+v", n, d.Findings)
	}
	if len(d.Findings.Kept) != len(b.Report.Findings) {
		t.Errorf("got %d findings kept, want all %d", len(d.Findings.Kept), len(b.Report.Findings))
	}
}

// editedInput replays local-1430917381534 after edit rewrote its lines.
func editedInput(t *testing.T, edit func(line string) (string, bool)) *Input {
	t.Helper()
	raw, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l2, keep := edit(l); keep {
			out = append(out, l2)
		}
	}
	a, stats, err := replay.Read(context.Background(), strings.NewReader(strings.Join(out, "\n")), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := analyze.Analyze(a)
	fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All)
	return NewInput(a, res, fs, Log{Path: "edited", Bytes: stats.Bytes, Events: stats.Events})
}

// TestCompareEditedRuns diffs the real log with edited copies: code moved
// (line numbers and files change), and a stage gone.
func TestCompareEditedRuns(t *testing.T) {
	orig := realInput(t, "spark-events/local-1430917381534")
	tests := []struct {
		name string
		edit func(string) (string, bool)
		want []string // per stage row: status/match
	}{
		{"code moved", func(l string) (string, bool) {
			l = strings.ReplaceAll(l, "map at <console>:26", "map at <console>:31")
			return strings.ReplaceAll(l, "collect at <console>:26", "collect at Job.scala:12"), true
		}, []string{"matched/" + diff.MatchNameNoLines, "matched/" + diff.MatchOperation}},
		{"stage 1 gone", func(l string) (string, bool) {
			return l, !strings.Contains(l, `"Stage ID":1,`)
		}, []string{"matched/" + diff.MatchName, "removed/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(orig, editedInput(t, tt.edit))
			var got []string
			for _, s := range d.Stages {
				got = append(got, s.Status+"/"+s.Match)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got stages %v, want %v", got, tt.want)
			}
			for _, s := range d.Stages {
				switch s.Status {
				case StageMatched:
					if s.DeltaMs != s.After.DurationMs-s.Before.DurationMs {
						t.Errorf("got delta %d, want %d", s.DeltaMs, s.After.DurationMs-s.Before.DurationMs)
					}
				case StageRemoved:
					if s.After != nil || s.Before.StageIDs[0] != 1 || s.DeltaMs != -s.Before.DurationMs || s.Before.Tasks != 10 {
						t.Errorf("got removed %+v delta %d, want stage 1 with its 10 tasks", s.Before, s.DeltaMs)
					}
				}
			}
		})
	}
}

// TestCompareFindings pairs findings by rule and matched stage.
func TestCompareFindings(t *testing.T) {
	f := func(rule string, sev diagnose.Severity, stages ...int) diagnose.Finding {
		return diagnose.Finding{Rule: rule, Severity: sev, Title: rule, StageIDs: stages}
	}
	before := []diagnose.Finding{f("data-skew", diagnose.Critical, 3), f("spill", diagnose.Warning, 3),
		f("resource-wait", diagnose.Warning), f("data-skew", diagnose.Warning, 7)}
	after := []diagnose.Finding{f("data-skew", diagnose.Warning, 4), f("resource-wait", diagnose.Warning),
		f("gc-pressure", diagnose.Warning, 5)}
	got := compareFindings(before, after, map[int]int{3: 4, 7: 9})
	describe := func(fs []FindingChange) string {
		var s []string
		for _, c := range fs {
			s = append(s, c.Rule+":"+c.BeforeSeverity+">"+c.AfterSeverity)
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct{ what, got, want string }{
		{"kept", describe(got.Kept), "data-skew:critical>warning resource-wait:warning>warning"},
		{"removed", describe(got.Removed), "spill:warning> data-skew:warning>"},
		{"added", describe(got.Added), "gc-pressure:>warning"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
}

// TestDiffGolden renders the text diff of two real runs of the same
// shell job (task failures in both), and checks the JSON carries the
// schema and both runs.
func TestDiffGolden(t *testing.T) {
	b := realInput(t, "spark-events/app-20161115172038-0000")
	a := realInput(t, "spark-events/app-20161116163331-0000")
	d := Compare(b, a)
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
	if doc["schema"] != DiffSchema {
		t.Errorf("got schema %v, want %s", doc["schema"], DiffSchema)
	}
}

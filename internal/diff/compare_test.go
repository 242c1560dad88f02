package diff

import (
	"context"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// realRun replays, analyzes and diagnoses one shared log.
func realRun(t testing.TB, rel string) Input {
	t.Helper()
	logs, err := eventlog.Open(context.Background(), sparktest.Path(t, strings.Split(rel, "/")...), eventlog.OpenOptions{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("open %s: %d logs, %v", rel, len(logs), err)
	}
	a, src, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatalf("replay %s: %v", rel, err)
	}
	src.Log.Path = rel
	d := pipeline.Diagnose(a, nil, src, nil)
	return Input{Report: d.Report, Result: d.Result}
}

// TestCompareShiftedCopy diffs a log with its copy shifted in time
// (local-1425081759269 is local-1422981759269 with every timestamp
// moved): every stage matches by name and nothing changes.
func TestCompareShiftedCopy(t *testing.T) {
	b := realRun(t, "spark-events/local-1422981759269")
	a := realRun(t, "spark-events/local-1425081759269")
	d := Compare(b, a)
	if d.Before.StartTime == d.After.StartTime {
		t.Fatalf("got the same start time %d, want the shifted copy", d.Before.StartTime)
	}
	if len(d.Stages) == 0 {
		t.Fatal("got no stages")
	}
	for _, s := range d.Stages {
		if s.Status != StageMatched || s.Match != MatchName || s.DeltaMs != 0 {
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

// editedRun replays local-1430917381534 after edit rewrote its lines.
func editedRun(t *testing.T, edit func(line string) (string, bool)) Input {
	t.Helper()
	log := sparktest.EditedLog(t, edit, "spark-events", "local-1430917381534")
	a, stats, err := replay.Read(context.Background(), strings.NewReader(log), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := analyze.Analyze(a)
	fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All)
	return Input{Report: reportv1.Build(a, res, fs, reportv1.Log{Path: "edited", Bytes: stats.Bytes, Events: stats.Events}),
		Result: res}
}

// TestCompareEditedRuns diffs the real log with edited copies: code moved
// (line numbers and files change), and a stage gone.
func TestCompareEditedRuns(t *testing.T) {
	orig := realRun(t, "spark-events/local-1430917381534")
	tests := []struct {
		name string
		edit func(string) (string, bool)
		want []string // per stage row: status/match
	}{
		{"code moved", func(l string) (string, bool) {
			l = strings.ReplaceAll(l, "map at <console>:26", "map at <console>:31")
			return strings.ReplaceAll(l, "collect at <console>:26", "collect at Job.scala:12"), true
		}, []string{"matched/" + MatchNameNoLines, "matched/" + MatchOperation}},
		{"stage 1 gone", func(l string) (string, bool) {
			return l, !strings.Contains(l, `"Stage ID":1,`)
		}, []string{"matched/" + MatchName, "removed/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(orig, editedRun(t, tt.edit))
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

// BenchmarkCompare diffs the big real log (12,987 tasks) with itself.
func BenchmarkCompare(b *testing.B) {
	before := realRun(b, "big/application_1701368813061_0008.zstd")
	after := realRun(b, "big/application_1701368813061_0008.zstd")
	b.ReportAllocs()
	for b.Loop() {
		if d := Compare(before, after); len(d.Stages) == 0 {
			b.Fatal("no stages")
		}
	}
}

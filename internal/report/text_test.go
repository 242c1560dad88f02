package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// realLogs are every event log in the shared Spark test data, relative to
// its spark directory.
var realLogs = []string{
	"spark-events/app-20161115172038-0000",
	"spark-events/app-20161116163331-0000",
	"spark-events/app-20180109111548-0000",
	"spark-events/app-20200706201101-0003",
	"spark-events/application_1516285256255_0012",
	"spark-events/application_1553914137147_0018",
	"spark-events/application_1555004656427_0144",
	"spark-events/application_1578436911597_0052",
	"spark-events/application_1628109047826_1317105",
	"spark-events/eventlog_v2_local-1766844910796",
	"spark-events/local-1422981759269",
	"spark-events/local-1422981780767",
	"spark-events/local-1425081759269",
	"spark-events/local-1426533911241",
	"spark-events/local-1426633911242",
	"spark-events/local-1430917381534",
	"spark-events/local-1430917381535_1",
	"spark-events/local-1430917381535_2",
	"spark-events/local-1642039451826",
	"extra/historical/spark-events/application_1506645932520_24630151",
	"extra/historical/spark-events/application_1536831636016_59384_1",
	"extra/historical/spark-events/application_1538416563558_0014",
	"extra/spark-events-broken/last-attempt-incomplete/application_1656321732247_0006_1",
	"extra/spark-events-broken/last-attempt-incomplete/application_1656321732247_0006_2",
	"extra/sql-core-spark-events/local-1596020211915",
}

// realInput replays and analyzes one shared log. The log path is kept
// relative to the test data so that golden files do not depend on where
// the data lives.
func realInput(t testing.TB, rel string) *Input {
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
	return NewInput(a, d.Result, d.Findings, src.Log)
}

// goldenName turns a log path into a golden file name.
func goldenName(rel string) string { return strings.NewReplacer("/", "__").Replace(rel) }

// checkGolden compares got with testdata/<dir>/<name>, or rewrites it
// under -update.
func checkGolden(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", dir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("text report differs from %s (go test -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// TestTextGolden renders every shared log and compares with the golden
// text report, which is what a reviewer reads when the output changes.
func TestTextGolden(t *testing.T) {
	for _, rel := range realLogs {
		t.Run(goldenName(rel), func(t *testing.T) {
			in := realInput(t, rel)
			var buf bytes.Buffer
			if err := WriteText(&buf, []*Input{in}, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "text", goldenName(rel)+".txt", buf.Bytes())
		})
	}
}

// TestTextNoEscapesWithoutColor checks that a report without colour (not
// a TTY, or NO_COLOR) has no escape codes at all, and that one with
// colour has them, on every shared log.
func TestTextNoEscapesWithoutColor(t *testing.T) {
	for _, rel := range realLogs {
		t.Run(goldenName(rel), func(t *testing.T) {
			in := realInput(t, rel)
			in.Report.Findings = append(in.Report.Findings, diagnose.Finding{Rule: "x", Severity: diagnose.Critical, Title: "t"})
			var plain, color bytes.Buffer
			if err := WriteText(&plain, []*Input{in}, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := WriteText(&color, []*Input{in}, TextOptions{Color: true}); err != nil {
				t.Fatal(err)
			}
			if i := bytes.IndexByte(plain.Bytes(), 0x1b); i >= 0 {
				t.Errorf("got an escape byte at offset %d without colour, want none", i)
			}
			if !bytes.Contains(color.Bytes(), []byte(sgrReset)) {
				t.Errorf("got no escape codes with colour on, want some")
			}
			if got, want := stripANSI(color.String()), plain.String(); got != want {
				t.Errorf("colour changes the text itself:\n--- colour, stripped ---\n%s\n--- plain ---\n%s", got, want)
			}
		})
	}
}

// stripANSI removes SGR sequences (ESC [ ... m).
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && s[j] != 'm' {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestTextLogTextIsInert checks that names from the log cannot inject
// terminal escapes or break lines: the Spark test log whose app name is an
// XSS string, and a name with an escape sequence and newlines.
func TestTextLogTextIsInert(t *testing.T) {
	in := realInput(t, "spark-events/eventlog_v2_local-1766844910796")
	if in.Report.App.Name != "<script>alert('XSS')</script>" {
		t.Fatalf("got app name %q, want the XSS string of the Spark test", in.Report.App.Name)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, []*Input{in}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"<script>alert('XSS')</script>"`) {
		t.Errorf("got no literal app name in the text report:\n%s", buf.String())
	}
	in.Report.App.Name = "evil\x1b[2J\nname\r"
	in.Report.Findings = []diagnose.Finding{{Rule: "r", Severity: diagnose.Warning, Title: "a\x1b]0;pwned\x07b", Detail: "line1\nline2",
		Evidence: map[string]any{"k\x1b": "v\x1b[31m"}}}
	buf.Reset()
	if err := WriteText(&buf, []*Input{in}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexByte(buf.Bytes(), 0x1b); i >= 0 {
		t.Errorf("got an escape byte from the log at offset %d, want none", i)
	}
	if !strings.Contains(buf.String(), `"evil[2J name"`) {
		t.Errorf("got app line %q, want the name folded onto one line", strings.SplitN(buf.String(), "\n", 2)[0])
	}
}

func TestFmt(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtDuration(0), "0ms"},
		{fmtDuration(999), "999ms"},
		{fmtDuration(12_345), "12.3s"},
		{fmtDuration(245_000), "4m05s"},
		{fmtDuration(8_040_000), "2h14m"},
		{fmtDuration(-1500), "-1.5s"},
		{fmtBytes(0), "0 B"},
		{fmtBytes(1023), "1023 B"},
		{fmtBytes(1536), "1.50 KiB"},
		{fmtBytes(15 << 20), "15.0 MiB"},
		{fmtBytes(300 << 30), "300 GiB"},
		{fmtPct(0.004), "0.4%"},
		{fmtPct(0.5), "50%"},
		{fmtRatio(0), "-"},
		{fmtRatio(3.21), "3.2×"},
		{truncate("abcdef", 4), "abc…"},
		{truncate("abc", 4), "abc"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestPhaseColumns(t *testing.T) {
	tl := []analyze.Interval{{Start: 0, End: 22, Phase: analyze.PhaseResourceWait},
		{Start: 22, End: 90, Phase: analyze.PhaseCompute}, {Start: 90, End: 100, Phase: analyze.PhaseDriverOnly}}
	got := phaseColumns(tl, 0, 100, 10)
	want := []analyze.Phase{"resourceWait", "resourceWait", "compute", "compute", "compute", "compute",
		"compute", "compute", "compute", "driverOnly"}
	if len(got) != len(want) {
		t.Fatalf("got %d columns, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %d: got %s, want %s", i, got[i], want[i])
		}
	}
}

// TestTextFindingsFitAScreen checks that past detailedFindings findings
// only the title lines are printed, most severe first, and that info
// findings are one line unless All asks for them.
func TestTextFindingsFitAScreen(t *testing.T) {
	in := realInput(t, "spark-events/local-1430917381534")
	in.Report.Findings = nil
	for i := range 16 {
		sev := diagnose.Warning
		switch {
		case i == 9:
			sev = diagnose.Critical
		case i >= 10:
			sev = diagnose.Info
		}
		rule := fmt.Sprintf("rule-%d", i)
		if sev == diagnose.Info {
			rule = fmt.Sprintf("rule-info-%d", i%2)
		}
		in.Report.Findings = append(in.Report.Findings, diagnose.Finding{Rule: rule,
			Severity: sev, Title: fmt.Sprintf("title %d", i), Detail: "detail", Recipe: "r.md"})
	}
	for _, c := range []struct {
		all               bool
		detailed, titles  int
		collapsedLineWant string
	}{
		{false, detailedFindings, 10, "6 info findings not shown (rule-info-0 ×3, rule-info-1 ×3): --all shows them"},
		{true, 16, 16, ""},
	} {
		var buf bytes.Buffer
		if err := WriteText(&buf, []*Input{in}, TextOptions{All: c.all}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if got := strings.Count(out, "recipe   docs/recipes/r.md"); got != c.detailed {
			t.Errorf("all=%v: got %d findings with details, want %d", c.all, got, c.detailed)
		}
		if got := strings.Count(out, "  title "); got != c.titles {
			t.Errorf("all=%v: got %d finding titles, want %d", c.all, got, c.titles)
		}
		if i, j := strings.Index(out, "title 9"), strings.Index(out, "title 0"); i < 0 || i > j {
			t.Errorf("all=%v: got the critical finding at %d after the first warning at %d, want it first", c.all, i, j)
		}
		if c.collapsedLineWant != "" && !strings.Contains(out, c.collapsedLineWant) {
			t.Errorf("all=%v: no line %q in\n%s", c.all, c.collapsedLineWant, out)
		}
		if c.all && strings.Contains(out, "not shown") {
			t.Errorf("all=%v: got a collapsed line, want every finding", c.all)
		}
	}
}

// TestTextFindingParts checks that a folded finding names its stages
// worst first with their costs, and that no raw evidence is printed.
func TestTextFindingParts(t *testing.T) {
	in := realInput(t, "spark-events/local-1430917381534")
	cost := func(ms int64) *diagnose.Cost { return &diagnose.Cost{WallMs: ms, AppWallMs: 100_000} }
	var parts []diagnose.Part
	for i, ms := range []int64{4900, 2600, 1600, 1000, 900, 800} {
		parts = append(parts, diagnose.Part{StageIDs: []int{20 + i}, Severity: diagnose.Warning, Detail: "d", Cost: cost(ms)})
	}
	in.Report.Findings = []diagnose.Finding{{Rule: "spill", Severity: diagnose.Warning, Title: "Memory spill to disk",
		Detail: "6 stages. Worst: stage 20 spilled 23.0 GiB from memory (0 B on disk).", Parts: parts, Cost: cost(11_800),
		Evidence: map[string]any{"diskSpilledBytes": 0, "attemptId": 0}}}
	var buf bytes.Buffer
	if err := WriteText(&buf, []*Input{in}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if want := "covers   stage 20 ~4.9s · stage 21 ~2.6s · stage 22 ~1.6s · stage 23 ~1.0s · 2 more"; !strings.Contains(out, want) {
		t.Errorf("no line %q in\n%s", want, out)
	}
	for _, raw := range []string{"diskSpilledBytes", "attemptId=", "evidence"} {
		if strings.Contains(out, raw) {
			t.Errorf("got raw evidence %q in the text report:\n%s", raw, out)
		}
	}
}

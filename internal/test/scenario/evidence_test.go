package scenario

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const (
	evidenceBegin = "<!-- real-Spark evidence: generated from testdata/scenarios (go test ./internal/test/scenario -run TestRulesEvidence -update) -->\n"
	evidenceEnd   = "<!-- end of real-Spark evidence -->\n"
)

// TestEveryRuleFiresOnRealSpark: each rule has a scenario whose committed
// logs, written by real Spark on every line, must make it fire (TestLive
// and TestCommittedLogs check that they do).
func TestEveryRuleFiresOnRealSpark(t *testing.T) {
	all := loadAll(t)
	for _, r := range diagnose.All {
		if where, ok := noLocalHardware[r.ID]; ok {
			t.Logf("rule %s: proven on %s", r.ID, where)
			continue
		}
		if !slices.ContainsFunc(all, func(s *Scenario) bool {
			return slices.ContainsFunc(s.Expect.Fires, func(f Fire) bool { return f.Rule == r.ID && f.Pending == "" })
		}) {
			t.Errorf("rule %s: no scenario where it must fire", r.ID)
		}
	}
}

// noLocalHardware names the rules no scenario can make fire here, for want
// of the hardware they judge, and the fixtures that prove them instead:
// real-Spark scenario logs with the plugin's documented events added.
var noLocalHardware = map[string]string{
	"gpu-spill": "testdata/plugins/rapids-spill (no GPU here; internal/diagnose TestRAPIDSSpill)",
	// Not hardware: an object store, which the scenario clusters have not.
	"s3-dominated-write":     "internal/s3a/testdata (Spark 3.5.9 writing to MinIO through s3a://; internal/diagnose TestS3DominatedWriteOnRealSpark)",
	"s3a-committer-bypassed": "internal/s3a/testdata/spark-3.5.9/magic-json (internal/diagnose TestS3ACommitterBypassedOnRealSpark)",
}

// evidenceTable is the "proven on real Spark" table of
// docs/recipes/rules.md: for each rule, the scenarios where it must fire
// and what it reported on each Spark line's committed log.
func evidenceTable(t *testing.T) string {
	all := loadAll(t)
	var b strings.Builder
	b.WriteString(evidenceBegin)
	b.WriteString("| rule | scenario | what happens | what sparkdx reports (per Spark line) |\n|---|---|---|---|\n")
	for _, r := range diagnose.All {
		for _, s := range all {
			i := slices.IndexFunc(s.Expect.Fires, func(f Fire) bool { return f.Rule == r.ID && f.Pending == "" })
			if i < 0 {
				continue
			}
			logs := s.Logs()
			var seen []string
			for _, version := range slices.Sorted(func(yield func(string) bool) {
				for v := range logs {
					if !yield(v) {
						return
					}
				}
			}) {
				d, err := Diagnose(context.Background(), logs[version])
				if err != nil {
					t.Fatal(err)
				}
				seen = append(seen, fmt.Sprintf("%s: %s", version, d.strongest(r.ID)))
			}
			what, _, _ := strings.Cut(s.Description, ": ")
			what, _, _ = strings.Cut(what, ". ")
			fmt.Fprintf(&b, "| %s | [%s](../../testdata/scenarios/%s) | %s | %s |\n", r.ID, s.Name, s.Name,
				strings.TrimSuffix(what, "."), strings.Join(seen, "; "))
		}
	}
	b.WriteString(evidenceEnd)
	return b.String()
}

// strongest says the rule's most severe finding on the log: severity, what
// it names, its cost.
func (d *Diagnosis) strongest(rule string) string {
	for _, f := range d.Findings { // most severe first
		if f.Rule != rule {
			continue
		}
		out := f.Severity.String()
		var where []string
		for i, id := range f.StageIDs {
			if i == 2 {
				where = append(where, fmt.Sprintf("%d more stages", len(f.StageIDs)-i))
				break
			}
			where = append(where, fmt.Sprintf("stage %d (%s)", id, shortStage(d.stageName(id))))
		}
		switch {
		case slices.Equal(f.ExecutorIDs, []string{"driver"}):
			where = append(where, "the driver")
		case len(f.ExecutorIDs) > 0:
			where = append(where, "executor "+strings.Join(f.ExecutorIDs, ", "))
		}
		if len(where) > 0 {
			out += " on " + strings.Join(where, ", ")
		}
		if c := f.Cost.String(); c != "" {
			out += ", costs " + c
		}
		return out
	}
	return "no finding"
}

// shortStage keeps a stage name's call and the file and line it names:
// "sum at /work/…/workload.py:44" → "sum at workload.py:44".
func shortStage(name string) string {
	call, site, ok := strings.Cut(name, " at ")
	if !ok {
		return name
	}
	return call + " at " + filepath.Base(site)
}

// TestRulesEvidence checks that the real-Spark evidence table in
// docs/recipes/rules.md is what the committed scenario logs give
// (-update rewrites it).
func TestRulesEvidence(t *testing.T) {
	sparktest.GeneratedSection(t, filepath.Join("..", "..", "..", "docs", "recipes", "rules.md"), evidenceBegin, evidenceEnd,
		evidenceTable(t), "real-Spark evidence table", *update)
}

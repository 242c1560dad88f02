package scenario

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFacts pins how a fact reads the analysis: the largest value over
// the stages whose name matches, bounds inclusive.
func TestFacts(t *testing.T) {
	d := &Diagnosis{Attempt: &model.Attempt{}, Result: &analyze.Result{Stages: []analyze.Stage{
		{Name: "sum at a.py:1", StageIO: analyze.StageIO{MemorySpilledBytes: 10}},
		{Name: "sum at a.py:2", StageIO: analyze.StageIO{MemorySpilledBytes: 30}},
		{Name: "count at a.py:3", StageIO: analyze.StageIO{MemorySpilledBytes: 99}},
	}}}
	ten := 10.0
	for _, c := range []struct {
		fact Fact
		met  bool
	}{
		{Fact{Metric: "memorySpilledBytes", Stage: "sum at", Min: 30}, true},
		{Fact{Metric: "memorySpilledBytes", Stage: "sum at", Min: 31}, false},
		{Fact{Metric: "memorySpilledBytes", Min: 99}, true},
		{Fact{Metric: "memorySpilledBytes", Stage: "sum at", Min: 0, Max: &ten}, false},
		{Fact{Metric: "memorySpilledBytes", Stage: "collect at", Min: 0}, false},
		{Fact{Metric: "failedJobs", Min: 0, Max: &ten}, true},
	} {
		if o := d.holds(c.fact); o.Met != c.met {
			t.Errorf("%s: met %v, want %v (%s)", o.What, o.Met, c.met, o.Detail)
		}
	}
}

// TestCheck pins the meaning of an expectation: severity floor, stage by
// name, executor, quietness, and strict pending.
func TestCheck(t *testing.T) {
	d := &Diagnosis{
		Attempt: &model.Attempt{Stages: []*model.StageAttempt{{StageID: 3, Name: "sum at workload.py:27"}}},
		Findings: []diagnose.Finding{
			{Rule: "data-skew", Severity: diagnose.Warning, StageIDs: []int{3}, Evidence: map[string]any{"ratio": 12.5, "tasks": 8}},
			{Rule: "tiny-tasks", Severity: diagnose.Info},
			{Rule: "spill", Severity: diagnose.Critical, ExecutorIDs: []string{"1"}},
		},
	}
	for _, c := range []struct {
		name   string
		expect Expect
		failed []bool
	}{
		{"met", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "warning", Stage: "sum at"}}}, []bool{false}},
		{"too mild", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "critical"}}}, []bool{true}},
		{"other stage", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "warning", Stage: "count at"}}}, []bool{true}},
		{"executor", Expect{Fires: []Fire{{Rule: "spill", Severity: "info", Executor: true}, {Rule: "data-skew", Severity: "info", Executor: true}}}, []bool{false, true}},
		{"evidence", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "warning", Evidence: map[string]string{"ratio": "12.5", "tasks": "8"}}}}, []bool{false}},
		{"other evidence", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "warning", Evidence: map[string]string{"ratio": "12.5", "tasks": "9"}}}}, []bool{true}},
		{"missing evidence", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "warning", Evidence: map[string]string{"max": "1"}}}}, []bool{true}},
		{"absent", Expect{Fires: []Fire{{Rule: "gc-pressure", Severity: "info"}}}, []bool{true}},
		{"count", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "warning", Count: 1}}}, []bool{false}},
		{"count differs", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "warning", Count: 1},
			{Rule: "tiny-tasks", Severity: "info", Count: 2}}}, []bool{false, true}},
		{"pending unmet", Expect{Fires: []Fire{{Rule: "gc-pressure", Severity: "info", Pending: "x"}}}, []bool{false}},
		{"pending met", Expect{Fires: []Fire{{Rule: "spill", Severity: "info", Pending: "x"}}}, []bool{true}},
		{"quiet: named rules may be loud", Expect{Fires: []Fire{{Rule: "data-skew", Severity: "info"}, {Rule: "spill", Severity: "info"}}, QuietAbove: "info"}, []bool{false, false, false}},
		{"quiet: others may not", Expect{QuietAbove: "info"}, []bool{true}},
		{"quiet above warning", Expect{Fires: []Fire{{Rule: "spill", Severity: "info"}}, QuietAbove: "warning"}, []bool{false, false}},
		{"absent: not even info", Expect{Absent: []string{"tiny-tasks", "gc-pressure"}}, []bool{true, false}},
		{"at most as many findings", Expect{MaxFindings: 3}, []bool{false}},
		{"more findings than allowed", Expect{MaxFindings: 2}, []bool{true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Scenario{Name: "x", Expect: c.expect}
			got := s.Check(d)
			if len(got) != len(c.failed) {
				t.Fatalf("got %d outcomes, want %d", len(got), len(c.failed))
			}
			for i, o := range got {
				if o.Failed() != c.failed[i] {
					t.Errorf("%s: failed %v, want %v (%s)", o.What, o.Failed(), c.failed[i], o.Detail)
				}
			}
		})
	}
}

// TestFiresAsCause: a rule folded into another finding as its cause (the
// slow write of 6,400 small files says why under "causes") fires as
// itself, with its own severity and stages; on the real log of the
// slow-output-write scenario small-files stands alone in no finding.
func TestFiresAsCause(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(root, "slow-output-write", "spark-*", "app-*"))
	if len(logs) == 0 {
		t.Fatal("no slow-output-write logs")
	}
	for _, path := range logs {
		d, err := Diagnose(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range d.Findings {
			if f.Rule == "small-files" {
				t.Fatalf("%s: small-files stands alone; the test needs it folded into slow-output-write", path)
			}
		}
		if o := d.fires(Fire{Rule: "small-files", Severity: "warning"}); !o.Met {
			t.Errorf("%s: %s: not met: %s", path, o.What, o.Detail)
		}
		if o := d.fires(Fire{Rule: "small-files", Severity: "critical", Count: 1}); o.Met {
			t.Errorf("%s: %s: met; the cause is a warning", path, o.What)
		}
	}
}

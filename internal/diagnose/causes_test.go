package diagnose

import (
	"strings"
	"testing"
)

func TestAttributeWrites(t *testing.T) {
	write := func(stages []int, commitMs int64) Finding {
		return Finding{Rule: SlowOutputWrite.ID, Severity: Warning, StageIDs: stages, Detail: "Writing output took 1m05s.",
			Recipe: "troubleshoot/s3-write-slow.md", Evidence: map[string]any{"jobCommitMs": commitMs}}
	}
	cause := func(rule string, sev Severity, stages ...int) Finding {
		return Finding{Rule: rule, Severity: sev, StageIDs: stages, Detail: rule + " on the write.", Recipe: rule + ".md",
			Evidence: map[string]any{"files": 6400}}
	}
	for _, c := range []struct {
		name   string
		in     []Finding
		rules  []string // of the findings out, in order
		why    string   // appended to the write's detail
		recipe string
		sev    Severity
	}{
		{"small files on the write stage", []Finding{write([]int{0}, 1700), cause("small-files", Critical, 0)},
			[]string{"slow-output-write"}, " Why: small-files on the write. [small-files]", "small-files.md", Critical},
		{"a cause on another stage stays apart", []Finding{write([]int{4}, 0), cause("spill", Warning, 2)},
			[]string{"slow-output-write", "spill"}, "", "troubleshoot/s3-write-slow.md", Warning},
		{"a cause on some write stages only", []Finding{write([]int{3, 4}, 0), cause("data-skew", Warning, 4)},
			[]string{"slow-output-write", "data-skew"}, "", "troubleshoot/s3-write-slow.md", Warning},
		{"a critical commit is its own problem", []Finding{write([]int{0}, 11*60_000), cause("small-files", Warning, 0)},
			[]string{"slow-output-write", "small-files"}, "", "troubleshoot/s3-write-slow.md", Warning},
		{"not a cause rule", []Finding{write([]int{0}, 0), cause("task-failures", Critical, 0)},
			[]string{"slow-output-write", "task-failures"}, "", "troubleshoot/s3-write-slow.md", Warning},
		{"two causes, the worse one's recipe", []Finding{cause("low-parallelism", Warning, 0), write([]int{0}, 0), cause("small-files", Critical, 0, 1)},
			[]string{"slow-output-write"}, " Why: small-files on the write. [small-files] Why: low-parallelism on the write. [low-parallelism]",
			"small-files.md", Critical},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := attributeWrites(c.in)
			var rules []string
			for _, f := range out {
				rules = append(rules, f.Rule)
			}
			if strings.Join(rules, " ") != strings.Join(c.rules, " ") {
				t.Fatalf("findings: got %v, want %v", rules, c.rules)
			}
			w := out[0]
			if got := strings.TrimPrefix(w.Detail, "Writing output took 1m05s."); got != c.why {
				t.Errorf("detail: got %q, want the write's and %q", w.Detail, c.why)
			}
			if w.Recipe != c.recipe || w.Severity != c.sev {
				t.Errorf("recipe, severity: got %s %v, want %s %v", w.Recipe, w.Severity, c.recipe, c.sev)
			}
			causes, _ := w.Evidence["causes"].([]map[string]any)
			if want := len(c.in) - len(out); len(causes) != want {
				t.Errorf("evidence: got %d causes, want %d", len(causes), want)
			}
			for _, f := range c.in {
				if _, ok := f.Evidence["causes"]; ok {
					t.Errorf("%s: the input's evidence was written into", f.Rule)
				}
			}
		})
	}
}

// TestRunOrder: most severe first; among equals, a finding that failed
// jobs before a costlier one (why the application failed comes first);
// then by cost, then by rule order.
func TestRunOrder(t *testing.T) {
	cost := func(ms int64) *Cost { return &Cost{WallMs: ms, AppWallMs: 100_000} }
	rule := func(id string, f Finding) *Rule {
		return &Rule{ID: id, Run: func(*Pass) []Finding { return []Finding{f} }}
	}
	rules := []*Rule{
		rule("spill", Finding{Severity: Critical, Cost: cost(43_000)}),
		rule("task-failures", Finding{Severity: Critical, Cost: cost(20_000), Evidence: map[string]any{"failedJobs": []int{32}}}),
		rule("executor-lost", Finding{Severity: Critical, Cost: cost(50_000), Evidence: map[string]any{"failedJobs": []int{}}}),
		rule("gc-pressure", Finding{Severity: Warning, Cost: cost(90_000), Evidence: map[string]any{"failedJobs": []int{1}}}),
		rule("tiny-tasks", Finding{Severity: Critical, Cost: cost(43_000)}),
	}
	var got []string
	for _, f := range Run(&Pass{}, rules) {
		got = append(got, f.Rule)
	}
	want := "task-failures executor-lost spill tiny-tasks gc-pressure"
	if strings.Join(got, " ") != want {
		t.Errorf("order: got %v, want %s", got, want)
	}
}

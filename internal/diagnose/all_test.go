package diagnose_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/docs/recipes"
	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// designIDs are the rule IDs DESIGN.md fixes; they never change meaning.
var designIDs = []string{"resource-wait", "slow-output-write", "data-skew", "straggler-host", "spill", "oom-risk",
	"executor-lost", "gc-pressure", "shuffle-bottleneck", "small-files", "tiny-tasks", "low-parallelism",
	"task-failures", "speculation-waste", "idle-executors", "join-explosion", "python-memory",
	"large-result-to-driver", "incomplete-app", "driver-degradation"}

// newIDs are the rules added since DESIGN.md was written ("new rules get
// new IDs").
var newIDs = []string{"streaming-behind", "gpu-spill", "s3-dominated-write", "s3a-committer-bypassed"}

func TestAllRules(t *testing.T) {
	var ids []string
	for _, r := range diagnose.All {
		ids = append(ids, r.ID)
		t.Run(r.ID, func(t *testing.T) {
			if r.Title == "" || r.Doc == "" || r.Run == nil {
				t.Errorf("rule %s lacks a title, doc or Run", r.ID)
			}
			if len(r.Thresholds) == 0 {
				t.Errorf("rule %s documents no threshold", r.ID)
			}
			for _, th := range r.Thresholds {
				if th.Metric == "" || th.Source == "" {
					t.Errorf("threshold %+v lacks a metric or a source", th)
				}
			}
			// The binary shows the recipe section and the rule's section of
			// rules.md (sparkdx explain, the HTML report): both must be there.
			if _, err := recipes.Read(r.Recipe); err != nil {
				t.Error(err)
			}
			if _, ok := recipes.Rule(r.ID); !ok {
				t.Errorf("docs/recipes/rules.md has no section for %s", r.ID)
			}
			for _, f := range []string{"fires.json", "quiet.json"} {
				if _, err := os.Stat(filepath.Join("testdata", r.ID, f)); err != nil {
					t.Errorf("fixture: %v", err)
				}
			}
		})
	}
	got, want := slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(append(slices.Clone(designIDs), newIDs...)))
	if !slices.Equal(got, want) {
		t.Errorf("All has rules %v, want the DESIGN.md set and the new ones %v", got, want)
	}
}

func TestParseSeverity(t *testing.T) {
	for _, c := range []struct {
		in   string
		want diagnose.Severity
		ok   bool
	}{{"info", diagnose.Info, true}, {"warning", diagnose.Warning, true}, {"CRITICAL", diagnose.Critical, true},
		{"error", diagnose.None, false}, {"", diagnose.None, false}} {
		got, err := diagnose.ParseSeverity(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseSeverity(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestRunOrdersBySeverity(t *testing.T) {
	mk := func(id string, sev diagnose.Severity) *diagnose.Rule {
		return &diagnose.Rule{ID: id, Title: id, Recipe: id + ".md",
			Run: func(*diagnose.Pass) []diagnose.Finding { return []diagnose.Finding{{Severity: sev}} }}
	}
	fs := diagnose.Run(&diagnose.Pass{}, []*diagnose.Rule{mk("a", diagnose.Info), mk("b", diagnose.Critical), mk("c", diagnose.Warning)})
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+"/"+f.Severity.String()+"/"+f.Recipe)
	}
	want := []string{"b/critical/b.md", "c/warning/c.md", "a/info/a.md"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if w := diagnose.Worst(fs); w != diagnose.Critical {
		t.Errorf("got worst %v, want critical", w)
	}
}

package diagnose_test

import (
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// TestFoldStages pins the generic fold: one finding per rule and cause,
// listing its stages, its severity the worst, its cost the sum (capped at
// the application's), its parts worst first.
func TestFoldStages(t *testing.T) {
	cost := func(wall int64) *diagnose.Cost {
		return &diagnose.Cost{WallMs: wall, AppWallMs: 10_000, AppCoreMs: 40_000, Basis: "wall: b"}
	}
	stage := func(id int, sev diagnose.Severity, wall int64, group string) diagnose.Finding {
		return diagnose.Finding{Severity: sev, StageIDs: []int{id}, Cost: cost(wall), Group: group,
			Detail: "stage detail", Evidence: map[string]any{"stageId": id}}
	}
	rule := func(fs ...diagnose.Finding) *diagnose.Rule {
		return &diagnose.Rule{ID: "r", Title: "R", Recipe: "r.md", Run: func(*diagnose.Pass) []diagnose.Finding { return fs }}
	}
	type want struct {
		sev    diagnose.Severity
		stages []int
		parts  []int // first stage of each part, in order
		wallMs int64
	}
	for _, c := range []struct {
		name string
		in   []diagnose.Finding
		want []want
	}{
		{"three stages fold into one", []diagnose.Finding{stage(7, diagnose.Info, 100, ""), stage(3, diagnose.Warning, 2000, ""),
			stage(5, diagnose.Info, 300, "")},
			[]want{{diagnose.Warning, []int{3, 5, 7}, []int{3, 5, 7}, 2400}}},
		{"summed cost capped at the app's wall", []diagnose.Finding{stage(1, diagnose.Warning, 8000, ""), stage(2, diagnose.Warning, 7000, "")},
			[]want{{diagnose.Warning, []int{1, 2}, []int{1, 2}, 10_000}}},
		{"groups are causes of their own", []diagnose.Finding{stage(1, diagnose.Info, 100, "a"), stage(2, diagnose.Info, 200, "b"),
			stage(3, diagnose.Info, 300, "a")},
			[]want{{diagnose.Info, []int{1, 3}, []int{3, 1}, 400}, {diagnose.Info, []int{2}, nil, 200}}},
		{"one stage stays as it is", []diagnose.Finding{stage(4, diagnose.Critical, 3000, "")},
			[]want{{diagnose.Critical, []int{4}, nil, 3000}}},
		{"app-wide and multi-stage findings stay", []diagnose.Finding{
			{Severity: diagnose.Warning, Cost: cost(50)}, {Severity: diagnose.Info, StageIDs: []int{1, 2}, Cost: cost(60)},
			stage(9, diagnose.Info, 70, "")},
			[]want{{diagnose.Warning, []int{}, nil, 50}, {diagnose.Info, []int{9}, nil, 70}, {diagnose.Info, []int{1, 2}, nil, 60}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := diagnose.Run(&diagnose.Pass{}, []*diagnose.Rule{rule(c.in...)})
			if len(got) != len(c.want) {
				t.Fatalf("got %d findings, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				f := got[i]
				var parts []int
				for _, p := range f.Parts {
					parts = append(parts, p.StageIDs[0])
				}
				if f.Severity != w.sev || !slices.Equal(f.StageIDs, w.stages) || !slices.Equal(parts, w.parts) || f.Cost.WallMs != w.wallMs {
					t.Errorf("finding %d: got %v stages %v parts %v wall %d ms, want %v stages %v parts %v wall %d ms",
						i, f.Severity, f.StageIDs, parts, f.Cost.WallMs, w.sev, w.stages, w.parts, w.wallMs)
				}
				if len(w.parts) > 0 {
					rows, _ := f.Evidence["stages"].([]map[string]any)
					if len(rows) != len(w.parts) || f.Evidence["stageId"] != w.parts[0] {
						t.Errorf("finding %d: evidence %v, want the worst stage's and one row per stage", i, f.Evidence)
					}
				}
			}
		})
	}
}

package diagnose_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// FuzzDiagnose feeds arbitrary logs through replay, Analyze and every
// rule: none may panic, and the phases must still add up.
func FuzzDiagnose(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "*.json"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) < 256<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, _, err := replay.Read(context.Background(), bytes.NewReader(data), replay.Options{Name: "fuzz"})
		if err != nil {
			return
		}
		r := analyze.Analyze(a)
		p := r.Phases
		if sum := p.ResourceWaitMs + p.ComputeMs + p.OutputWriteMs + p.DriverOnlyMs; sum != r.DurationMs {
			t.Fatalf("phases add up to %d, want %d", sum, r.DurationMs)
		}
		for _, fd := range diagnose.Run(&diagnose.Pass{Attempt: a, Result: r}, diagnose.All) {
			if fd.Severity < diagnose.Info || fd.Severity > diagnose.Critical {
				t.Fatalf("finding with severity %d", fd.Severity)
			}
		}
	})
}

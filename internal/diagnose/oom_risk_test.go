package diagnose_test

import (
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

// TestOOMRiskFoldsExecutors: executors at the same level are one finding
// listing them worst first, with the worst one's numbers on top.
func TestOOMRiskFoldsExecutors(t *testing.T) {
	const gib = int64(1) << 30
	exec := func(id string, heap, majorGCs int64) analyze.Executor {
		return analyze.Executor{ID: id, HasPeaks: true, PeakJVMHeapBytes: heap, MajorGCCount: majorGCs}
	}
	res := &analyze.Result{DurationMs: 600_000, Config: analyze.Config{ExecutorMemoryBytes: 4 * gib},
		Executors: []analyze.Executor{
			exec("1", 39*gib/10, 2),   // 97.5 %, major GCs: critical
			exec("2", 2*gib, 0),       // 50 %: fine
			exec("3", 395*gib/100, 1), // 98.75 %: critical, the worst
			exec("4", 37*gib/10, 0),   // 92.5 %: warning
			exec("5", 39*gib/10, 0),   // 97.5 % without a major GC: warning
		}}
	fs := diagnose.Run(&diagnose.Pass{Attempt: model.NewAttempt(), Result: res}, []*diagnose.Rule{diagnose.OOMRisk})
	type got struct {
		sev   diagnose.Severity
		execs []string
		worst any
	}
	var g []got
	for _, f := range fs {
		g = append(g, got{f.Severity, f.ExecutorIDs, f.Evidence["executorId"]})
	}
	want := []got{{diagnose.Critical, []string{"3", "1"}, "3"}, {diagnose.Warning, []string{"5", "4"}, "5"}}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("got %+v, want %+v:%s", g, want, dump(fs))
	}
	if rows, _ := fs[0].Evidence["executors"].([]map[string]any); len(rows) != 2 || rows[1]["executorId"] != "1" {
		t.Errorf("critical finding's executors evidence: got %v", fs[0].Evidence["executors"])
	}
}

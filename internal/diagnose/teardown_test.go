package diagnose_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestClusterTeardownIsNoFault: a managed cluster terminated after its
// last job (no ApplicationEnd; the standalone Master writes "worker lost:
// host got disassociated" for each executor, as on Databricks) lost no work.
// Neither the removal nor the missing end is a warning. The baseline: the
// same app whose executor is lost with no reason Spark explains, while a
// job runs, stays a warning for both rules.
func TestClusterTeardownIsNoFault(t *testing.T) {
	for _, c := range []struct {
		name     string
		reason   string
		midJob   bool
		lost     diagnose.Severity
		incomple diagnose.Severity
	}{
		{"teardown", "worker lost: 10.59.176.34:35971 got disassociated", false, diagnose.Info, diagnose.Info},
		{"lost mid-job", "Remote RPC client disassociated. Likely due to containers exceeding thresholds, or network issues.",
			true, diagnose.Warning, diagnose.Critical},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newApp("teardown")
			f.executors(2, 4, 5*sec)
			end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 2*sec, 2, 4, nil)})
			if c.midJob {
				f.job(1, -1, &stage{id: 1, submit: end + sec, numTasks: 2, open: true,
					tasks: []task{{exec: "2", host: "host-2", index: 0, running: true}}})
			}
			f.executorRemoved("1", end+30*sec, c.reason)
			a, _, err := replay.Read(context.Background(), bytes.NewReader(f.bytes()), replay.Options{Name: "teardown", Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)}, diagnose.All)
			if got := findingsOf(fs, "executor-lost"); len(got) != 1 || got[0].Severity != c.lost {
				t.Errorf("executor-lost: got%s, want one %v", dump(got), c.lost)
			}
			if got := findingsOf(fs, "incomplete-app"); len(got) != 1 || got[0].Severity != c.incomple {
				t.Errorf("incomplete-app: got%s, want one %v", dump(got), c.incomple)
			}
		})
	}
}

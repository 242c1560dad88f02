package diagnose_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestFetchFailureAfterExecutorLoss: executor 2 dies (exit 137) after the
// map stage; the reduce stage's fetch from it fails and the stage runs
// again. The loss is the cause: executor-lost names the fetch failure it
// caused, and shuffle-bottleneck does not report it as a shuffle problem.
func TestFetchFailureAfterExecutorLoss(t *testing.T) {
	f := newApp("fetchloss")
	f.executors(2, 4, 5*sec)
	end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, 20*sec, 2, 4, func(i int, t *task) {
		t.shWrite = 64 * mb
	})})
	lostAt := end + sec
	reason := "Container from a bad node: container_1 on host: host-2. Exit status: 137. Diagnostics: Container killed on request. Exit code is 137"
	s1 := &stage{id: 1, submit: end + 2*sec, failure: "org.apache.spark.shuffle.FetchFailedException: Failed to connect to host-2",
		during: []timed{{lostAt, removed("2", lostAt, reason)}},
		tasks: uniform(4, 10*sec, 1, 4, func(i int, t *task) {
			t.shRead = 64 * mb
			if i == 3 {
				t.reason = obj{"Reason", "FetchFailed", "Block Manager Address", obj{"Executor ID", "2", "Host", "host-2", "Port", 40000},
					"Shuffle ID", 0, "Map ID", 5, "Map Index", 5, "Reduce ID", 3, "Message", "Failed to connect to host-2/10.0.0.2:7337"}
			}
		})}
	s2 := &stage{id: 1, attempt: 1, submit: s1.submit + 13*sec, tasks: uniform(4, 10*sec, 1, 4, func(i int, t *task) { t.shRead = 64 * mb })}
	end = f.job(1, -1, s1, s2)
	f.appEnd(end + 5*sec)

	a, _, err := replay.Read(context.Background(), bytes.NewReader(f.bytes()), replay.Options{Name: "fetchloss", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)},
		[]*diagnose.Rule{diagnose.ExecutorLost, diagnose.ShuffleBottleneck})
	var lost *diagnose.Finding
	for i := range fs {
		switch fs[i].Rule {
		case "shuffle-bottleneck":
			t.Errorf("shuffle-bottleneck reports the loss's fetch failure:%s", dump(fs))
		case "executor-lost":
			lost = &fs[i]
		}
	}
	if lost == nil {
		t.Fatalf("no executor-lost finding:%s", dump(fs))
	}
	if got := lost.Evidence["fetchFailuresCaused"]; got != 1 {
		t.Errorf("executor-lost fetchFailuresCaused = %v, want 1:%s", got, dump(fs))
	}
}

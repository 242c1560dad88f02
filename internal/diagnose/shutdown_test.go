package diagnose_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestFailureAfterStopIsNoRootCause: a task that fails with
// "IOException: Filesystem closed" 76 ms after SparkListenerApplicationEnd
// (the filesystem shut down under it), in a job the stop then cancels, is
// a consequence of the stop. With an earlier ValueError that failed a job,
// that is the one root cause and the shutdown failure folds under it;
// alone, it is no cause at all: the application stopped, no finding is
// critical.
func TestFailureAfterStopIsNoRootCause(t *testing.T) {
	for _, c := range []struct {
		name       string
		valueError bool
		status     string
	}{
		{"after a failed job", true, analyze.OutcomeFailed},
		{"alone", false, analyze.OutcomeStopped},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := stopApp(t, c.valueError)
			res := analyze.Analyze(a)
			fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All)
			o := res.Failures.Outcome
			if o.Status != c.status {
				t.Fatalf("status %s, want %s (%+v)", o.Status, c.status, o)
			}
			var shutdown *analyze.FailureCause
			for i := range res.Failures.Causes {
				if cs := &res.Failures.Causes[i]; strings.Contains(cs.Error.Message, "Filesystem closed") {
					shutdown = cs
				}
			}
			if shutdown == nil || !shutdown.Shutdown || shutdown.Fatal() {
				t.Fatalf("the Filesystem closed cause %+v: want a shutdown consequence that failed nothing", shutdown)
			}
			tf := findingsOf(fs, "task-failures")
			if c.valueError {
				if len(tf) != 1 || tf[0].Evidence["exception"] != "ValueError" || tf[0].Severity != diagnose.Critical ||
					!strings.Contains(strings.Join(tf[0].Evidence["consequences"].([]string), ";"), "Filesystem closed") {
					t.Errorf("want one critical ValueError with the shutdown failure folded under it:%s", dump(tf))
				}
				return
			}
			if diagnose.Worst(fs) == diagnose.Critical {
				t.Errorf("a failure after the stop made a critical finding:%s", dump(fs))
			}
			if len(tf) == 0 || !strings.Contains(tf[0].Detail, "Filesystem closed") {
				t.Errorf("want the shutdown failure reported as such:%s", dump(tf))
			}
		})
	}
}

// stopApp is a log in which job 1's task fails with "Filesystem closed"
// 76 ms after the application's end and the stop cancels job 1; with
// valueError, job 0 failed before on a ValueError in every attempt.
func stopApp(t *testing.T, valueError bool) *model.Attempt {
	f := newApp("stop")
	f.executors(2, 4, 5*sec)
	start := 10 * sec
	if valueError {
		ve := obj{"Reason", "ExceptionFailure", "Class Name", "org.apache.spark.api.python.PythonException",
			"Description", "Traceback (most recent call last):\n  File \"/jobs/etl.py\", line 11, in parse\nValueError: bad record 7\n",
			"Stack Trace", []any{}, "Accumulator Updates", []any{}}
		tasks := uniform(4, 2*sec, 2, 4, nil)
		tasks[0].reason = ve
		for a := 1; a < 4; a++ {
			tasks = append(tasks, task{exec: "1", host: "host-1", index: 0, attempt: a, launch: int64(a) * 2 * sec,
				dur: 2 * sec, reason: ve})
		}
		start = f.job(0, -1, &stage{id: 0, submit: start, numTasks: 4, tasks: tasks,
			failure: "Job aborted due to stage failure: Task 0 in stage 0.0 failed 4 times, most recent failure: " +
				"Lost task 0.3 in stage 0.0 (TID 7) (host-1 executor 1): ValueError: bad record 7"}) + sec
	}
	stop := start + 20*sec
	closed := obj{"Reason", "ExceptionFailure", "Class Name", "java.io.IOException", "Description", "Filesystem closed",
		"Full Stack Trace", "java.io.IOException: Filesystem closed\n\tat org.apache.hadoop.hdfs.DFSClient.checkOpen(DFSClient.java:483)\n",
		"Stack Trace", []any{}, "Accumulator Updates", []any{}}
	f.job(1, -1, &stage{id: 1, submit: start, numTasks: 2,
		tasks: []task{{exec: "2", host: "host-2", index: 0, dur: stop - start + 76, reason: closed},
			{exec: "2", host: "host-2", index: 1, running: true}},
		during:  []timed{{stop, obj{"Event", "SparkListenerApplicationEnd", "Timestamp", t0 + stop}}},
		failure: "Job 1 cancelled because SparkContext was shut down"})
	a, _, err := replay.Read(context.Background(), bytes.NewReader(f.bytes()), replay.Options{Name: "stop", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

package analyze_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// A Python worker killed by SIGSEGV: Spark's own message names the cause,
// not the EOFException without a message inside it; it failed the job.
func TestOutcomePythonCrash(t *testing.T) {
	for line, r := range scenarioResults(t, "python-crash") {
		t.Run(line, func(t *testing.T) {
			o := r.Failures.Outcome
			if o.Status != analyze.OutcomeFailed || o.Cause < 0 || !slices.Equal(o.FailedJobs, []int{0}) {
				t.Fatalf("outcome %+v, want job 0 failed by a cause", o)
			}
			e := r.Failures.Causes[o.Cause].Error
			if e.Class != "org.apache.spark.SparkException" || !strings.HasPrefix(e.Message, "Python worker exited unexpectedly (crashed)") {
				t.Errorf("root cause %s: %s, want Spark's 'Python worker exited unexpectedly (crashed)'", e.Class, e.Message)
			}
		})
	}
}

// A ValueError fails a job; the driver then stops with a background job
// running, which the stop cancels after the application's end: the
// ValueError is the one root cause, the cancelled job a stopped one.
func TestOutcomeFailureAfterStop(t *testing.T) {
	for line, r := range scenarioResults(t, "failure-after-stop") {
		t.Run(line, func(t *testing.T) {
			f := r.Failures
			o := f.Outcome
			if o.Status != analyze.OutcomeFailed || o.Cause < 0 || len(o.FailedJobs) != 1 || len(o.StoppedJobs) != 1 {
				t.Fatalf("outcome %+v, want one failed and one stopped job", o)
			}
			if c := f.Causes[o.Cause]; c.Error.Class != "ValueError" || c.Shutdown {
				t.Errorf("root cause %+v, want the ValueError", c.Error)
			}
			if f.StopTime <= 0 {
				t.Errorf("stop time %d, want the application's end", f.StopTime)
			}
			for _, j := range f.Jobs {
				if j.JobID == o.StoppedJobs[0] && (j.Kind != analyze.JobCancelledByShutdown || j.Time < f.StopTime) {
					t.Errorf("stopped job %+v: want cancelled by the shutdown after %d", j, f.StopTime)
				}
			}
		})
	}
}

// Executors die of OutOfMemoryError (exit 52) on each attempt: the job
// fails, its root cause is the OOM (or the loss it causes), every removal
// counts, and the fetch failures that follow are the losses'.
func TestOutcomeExecutorOOM(t *testing.T) {
	for line, r := range scenarioResults(t, "executor-oom") {
		t.Run(line, func(t *testing.T) {
			f := r.Failures
			o := f.Outcome
			if o.Status != analyze.OutcomeFailed || o.Cause < 0 || len(o.FailedJobs) == 0 {
				t.Fatalf("outcome %+v, want a failed job with a cause", o)
			}
			c := f.Causes[o.Cause]
			if !strings.Contains(c.Error.Class, "OutOfMemoryError") && c.Reason != "ExecutorLostFailure" {
				t.Errorf("root cause %s (%s), want the OutOfMemoryError or the loss", c.Error.Class, c.Reason)
			}
			oom := 0
			for _, e := range r.Executors {
				if e.Loss.Cause == analyze.CauseJVMOOM {
					oom++
				}
			}
			if oom < 2 {
				t.Errorf("%d executors lost to OOM, want every exit-52 removal (≥ 2)", oom)
			}
			for _, c := range f.Causes {
				if c.Reason == "FetchFailed" && c.LostExecutor == "" {
					t.Errorf("fetch failure %q not folded under the executor loss before it", c.Error.Message)
				}
			}
		})
	}
}

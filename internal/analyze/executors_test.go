package analyze

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestHeapOOMBehindSigterm: on YARN a heap OOM exits 143; the task's
// OutOfMemoryError must decide the cause.
func TestHeapOOMBehindSigterm(t *testing.T) {
	for _, c := range []struct {
		name, taskError string
		want            Cause
	}{
		{"oom in task", "java.lang.OutOfMemoryError: Java heap space\n\tat ...", CauseJVMOOM},
		{"other error", "java.io.IOException: disk full", CauseSigterm},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := model.NewAttempt()
			a.StartTime, a.EndTime, a.Completed = 0, 100_000, true
			e := a.AddExecutor("3", 1000)
			e.TotalCores = 4
			e.RemoveTime, e.RemoveReason = 60_000, "Container exited with a non-zero exit code 143. Killed by external signal"
			s, _ := a.StageOrNew(0, 0)
			s.SubmissionTime, s.CompletionTime = 2000, 70_000
			s.AddTask(&model.Task{TaskID: 1, LaunchTime: 2000, FinishTime: 59_000, ExecutorID: "3", Failed: true,
				EndReason: "ExceptionFailure", Extra: &model.TaskExtra{ErrorMessage: c.taskError}})
			r := Analyze(a)
			got := r.Executors[0]
			if got.Loss.Cause != c.want || got.Loss.ExitCode != 143 {
				t.Errorf("got cause %q exit %d, want %q exit 143", got.Loss.Cause, got.Loss.ExitCode, c.want)
			}
			if got.LifetimeMs != 59_000 || got.BusyMs != 57_000 {
				t.Errorf("got lifetime %d busy %d, want 59000 and 57000", got.LifetimeMs, got.BusyMs)
			}
		})
	}
}

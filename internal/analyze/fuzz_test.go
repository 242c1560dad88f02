package analyze

import (
	"strings"
	"testing"
)

func FuzzClassifyLoss(f *testing.F) {
	for _, s := range []string{
		"Container killed by YARN for exceeding physical memory limits. 5.5 GB of 5.5 GB physical memory used.",
		"Container marked as failed: c on host: h. Exit status: 56. Diagnostics: Exception from container-launch.",
		"The executor with id 3 exited with exit code 137(SIGKILL, possible container OOM).",
		"ExecutorLostFailure (executor 7 exited caused by one of the running tasks) Reason: Container killed",
		"Executor killed by driver.", "exit code -99999999999999999999", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cause, code := ClassifyLoss(s)
		if s == "" && cause != CauseNone {
			t.Errorf("empty reason: got %q", cause)
		}
		if code != -1 && !strings.Contains(strings.ToLower(s), "exit") {
			t.Errorf("code %d from a reason without an exit code: %q", code, s)
		}
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4g", "512m", "100b", "2048", "1gb", "-1", "9999999999999t", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := ParseSize(s, mib, -7); n < 0 && n != -7 {
			t.Errorf("ParseSize(%q) = %d", s, n)
		}
	})
}

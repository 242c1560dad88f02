package analyze

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

func TestClassifyLoss(t *testing.T) {
	for _, c := range []struct {
		reason string
		cause  Cause
		code   int
	}{
		{"Container killed by YARN for exceeding physical memory limits. 5.5 GB of 5.5 GB physical memory used.", CauseContainerMemory, -1},
		{"Container from a bad node: container_1 on host: h. Exit status: 137. Diagnostics: [2023] Container killed on request. Exit code is 137", CauseContainerMemory, 137},
		{"The executor with id 3 exited with exit code 137(SIGKILL, possible container OOM).", CauseContainerMemory, 137},
		{"The executor with id 4 exited with exit code 52(JVM OOM).", CauseJVMOOM, 52},
		{"Command exited with code 3: java.lang.OutOfMemoryError: Java heap space", CauseJVMOOM, 3},
		{"Exit status: 143. Diagnostics: Container killed on request. Exit code is 143", CauseSigterm, 143},
		{"Container container_e18_1 on host: h was preempted.", CausePreempted, -1},
		{"Container marked as failed: c on host: h. Exit status: 56. Diagnostics: Exception from container-launch.", CauseHeartbeat, 56},
		{"Executor heartbeat timed out after 128731 ms", CauseHeartbeat, -1},
		{"Container container_e18_1 exited from explicit termination request.", CauseIdle, -1},
		{"Executor decommission.", CauseDecommission, -1},
		{"Executor killed by driver.", CauseDriver, -1},
		{"Executor for container container_1 exited because of a YARN event (e.g., pre-emption) and not because of an error in the running job.", CausePreempted, -1},
		{"Container released on a *lost* node", CauseNodeLost, -1},
		{"Container marked as failed: c on host: h. Exit status: -100. Diagnostics: Container released on a *lost* node.", CauseNodeLost, -100},
		{"Container marked as failed: c. Exit status: -105. Diagnostics: Container killed by the ApplicationMaster.", CauseDriver, -105},
		{"The executor with id 2 exited with exit code 0(success).", CauseDriver, 0},
		{"The executor with id 7 was deleted by a user or the framework.", CausePreempted, -1},
		{"Remote RPC client disassociated. Likely due to containers exceeding thresholds, or network issues.", CauseUnknown, -1},
		{"worker lost", CauseNodeLost, -1},
		{"worker lost: 10.59.176.34:35971 got disassociated", CauseNodeLost, -1},
		{"", CauseNone, -1},
	} {
		cause, code := ClassifyLoss(c.reason)
		if cause != c.cause || code != c.code {
			t.Errorf("ClassifyLoss(%q) = %q, %d; want %q, %d", c.reason, cause, code, c.cause, c.code)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in        string
		unit, def int64
		want      int64
	}{
		{"4g", mib, 0, 4 * gib},
		{"4G", mib, 0, 4 * gib},
		{"512m", mib, 0, 512 * mib},
		{"2048", mib, 0, 2048 * mib},
		{"2048", 1, 0, 2048},
		{"100b", mib, 0, 100},
		{"1gb", 1, 0, gib},
		{"1024k", 1, 0, mib},
		{"2t", 1, 0, 2 << 40},
		{"", mib, 7, 7},
		{"lots", mib, 7, 7},
		{"-1g", mib, 7, 7},
	} {
		if got := ParseSize(c.in, c.unit, c.def); got != c.want {
			t.Errorf("ParseSize(%q, %d, %d) = %d, want %d", c.in, c.unit, c.def, got, c.want)
		}
	}
}

func TestMetricIndexes(t *testing.T) {
	for name, idx := range map[string]int{"ProcessTreeOtherRSSMemory": metricOtherRSS, "MajorGCCount": metricMajorGCCount} {
		if got := model.ExecutorMetricIndex(name); got != idx {
			t.Errorf("%s is metric %d, want %d", name, got, idx)
		}
	}
}

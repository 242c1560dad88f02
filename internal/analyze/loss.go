package analyze

import (
	"regexp"
	"strconv"
	"strings"
)

// exitCodeRE finds the exit code in the removal reasons YARN, Kubernetes
// and standalone write: "Exit status: 137", "exit code 137",
// "exitCode=56", "exited with exit code 137(SIGKILL, ...)".
var exitCodeRE = regexp.MustCompile(`(?i)exit(?:ed with)?[ _]?(?:status|code)(?:[:=]\s*|\s+)(-?\d+)`)

// ClassifyLoss reads an executor removal reason (or an ExecutorLostFailure
// loss reason) and says what ended the executor. Exit codes follow
// docs/recipes/troubleshoot/oom-and-spill.md#exit-codes.
func ClassifyLoss(reason string) (Cause, int) {
	code := -1
	if m := exitCodeRE.FindStringSubmatch(reason); m != nil {
		code, _ = strconv.Atoi(m[1])
	}
	r := strings.ToLower(reason)
	switch {
	case reason == "":
		return CauseNone, code
	case strings.Contains(r, "outofmemoryerror") || strings.Contains(r, "jvm oom") || code == 52 || code == 3:
		return CauseJVMOOM, code
	case strings.Contains(r, "exceeding") && strings.Contains(r, "memory limits"),
		strings.Contains(r, "oomkilled"), strings.Contains(r, "container oom"),
		code == 137, code == -104, code == -103:
		return CauseContainerMemory, code
	case strings.Contains(r, "preempted"), strings.Contains(r, "pre-emption"), code == -102, code == -106,
		strings.Contains(r, "deleted by a user or the framework"):
		// YARN preemption or RM kill; Kubernetes pod deletion, eviction, spot reclaim
		return CausePreempted, code
	case strings.Contains(r, "lost node"), strings.Contains(r, "*lost* node"), strings.Contains(r, "node lost"), code == -101,
		strings.HasPrefix(r, "worker lost"):
		// standalone: the Master lost the executor's Worker ("worker lost: host:port
		// got disassociated"), which is the machine going away, as when a cluster is
		// torn down or a spot node is reclaimed, not the executor failing
		return CauseNodeLost, code
	case code == 0, code == -100, code == -105, code == -107:
		// a normal exit; YARN ABORTED, KILLED_BY_APPMASTER, KILLED_AFTER_APP_COMPLETION
		return CauseDriver, code
	case strings.Contains(r, "decommission"):
		return CauseDecommission, code
	case strings.Contains(r, "heartbeat"), code == 56:
		return CauseHeartbeat, code
	case code == 143:
		return CauseSigterm, code
	case strings.Contains(r, "idle") || strings.Contains(r, "explicit termination request"):
		// dynamic allocation releasing an executor it no longer needs
		return CauseIdle, code
	case strings.Contains(r, "killed by driver"), strings.Contains(r, "stopped"), strings.Contains(r, "shutdown"):
		return CauseDriver, code
	}
	return CauseUnknown, code
}

// IsMemoryKill tells whether a cause is running out of memory.
func (c Cause) IsMemoryKill() bool { return c == CauseContainerMemory || c == CauseJVMOOM }

// AppFault tells whether a cause is usually the application's doing.
func (c Cause) AppFault() bool {
	switch c {
	case CauseNone, CausePreempted, CauseDecommission, CauseIdle, CauseDriver, CauseNodeLost:
		return false
	}
	return true
}

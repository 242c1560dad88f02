package agent

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process has used, which is
// what the agent's own cost is measured in.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package agent

import (
	"syscall"
	"time"
)

// threadCPUTime is the CPU time of the calling OS thread: a goroutine
// locked to its thread measures its own work with it while the sampling
// cycles run on other threads.
func threadCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

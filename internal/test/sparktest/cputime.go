package sparktest

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the CPU time (user + system, every thread) this process has
// used so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU reports cpu-ns/op, the CPU time since start per iteration. On
// a shared machine the wall time of ns/op measures the load as much as the
// code; the CPU time (garbage collector included) changes far less.
func ReportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((CPUTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

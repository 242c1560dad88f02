//go:build !linux

package agent

import "time"

// threadCPUTime falls back to the process's CPU time where the kernel
// has no per-thread usage: it then counts the sampling cycles too.
func threadCPUTime() time.Duration { return cpuTime() }

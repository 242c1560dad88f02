package agent

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/prometheus/procfs"
)

// Node is the machine the agent runs on: memory, swap, load and CPU time.
type Node struct {
	MemTotalBytes     uint64  `json:"memTotalBytes"`
	MemAvailableBytes uint64  `json:"memAvailableBytes"`
	MemFreeBytes      uint64  `json:"memFreeBytes"`
	CachedBytes       uint64  `json:"cachedBytes"`
	SwapTotalBytes    uint64  `json:"swapTotalBytes"`
	SwapFreeBytes     uint64  `json:"swapFreeBytes"`
	Load1             float64 `json:"load1"`
	Load5             float64 `json:"load5"`
	Load15            float64 `json:"load15"`
	CPUs              int     `json:"cpus"`
	CPUUserSeconds    float64 `json:"cpuUserSeconds"`
	CPUSystemSeconds  float64 `json:"cpuSystemSeconds"`
	CPUIdleSeconds    float64 `json:"cpuIdleSeconds"`
	CPUIOWaitSeconds  float64 `json:"cpuIowaitSeconds"`
	CPUStealSeconds   float64 `json:"cpuStealSeconds"`
	// OOMKills counts the kernel's OOM kills on the node since boot
	// (/proc/vmstat oom_kill), including kills outside any memory limit.
	OOMKills uint64 `json:"oomKills"`
	BootTime uint64 `json:"bootTime"` // seconds since the epoch
}

// collectNode reads /proc/meminfo, /proc/loadavg, /proc/stat and
// /proc/vmstat. Only /proc/stat is required: without its boot time process
// start times cannot be computed.
func collectNode(fs procfs.FS, procRoot string, errs map[string]int) (Node, error) {
	var n Node
	st, err := fs.Stat()
	if err != nil {
		return n, fmt.Errorf("node: %w", err)
	}
	n.BootTime = st.BootTime
	n.CPUs = len(st.CPU)
	n.CPUUserSeconds = st.CPUTotal.User + st.CPUTotal.Nice
	n.CPUSystemSeconds = st.CPUTotal.System + st.CPUTotal.IRQ + st.CPUTotal.SoftIRQ
	n.CPUIdleSeconds = st.CPUTotal.Idle
	n.CPUIOWaitSeconds = st.CPUTotal.Iowait
	n.CPUStealSeconds = st.CPUTotal.Steal
	if mi, err := fs.Meminfo(); err != nil {
		errs["meminfo"]++
	} else {
		n.MemTotalBytes = kib(mi.MemTotal)
		n.MemAvailableBytes = kib(mi.MemAvailable)
		n.MemFreeBytes = kib(mi.MemFree)
		n.CachedBytes = kib(mi.Cached)
		n.SwapTotalBytes = kib(mi.SwapTotal)
		n.SwapFreeBytes = kib(mi.SwapFree)
	}
	if la, err := fs.LoadAvg(); err != nil {
		errs["loadavg"]++
	} else {
		n.Load1, n.Load5, n.Load15 = la.Load1, la.Load5, la.Load15
	}
	if b, err := os.ReadFile(filepath.Join(procRoot, "vmstat")); err == nil {
		n.OOMKills, _ = keyed(b, "oom_kill")
	}
	return n, nil
}

func kib(v *uint64) uint64 {
	if v == nil {
		return 0
	}
	return *v * 1024
}

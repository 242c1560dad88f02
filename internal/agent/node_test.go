package agent

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestNodeCollectorFixture(t *testing.T) {
	s := sample(t, fixtureAgent(t, filepath.Join("testdata", "node1"), Config{}))
	want := Node{MemTotalBytes: 16384000 * 1024, MemAvailableBytes: 8192000 * 1024, MemFreeBytes: 2048000 * 1024,
		CachedBytes: 4096000 * 1024, SwapTotalBytes: 1024000 * 1024, SwapFreeBytes: 512000 * 1024,
		Load1: 1.5, Load5: 0.75, Load15: 0.25, CPUs: 2, CPUUserSeconds: 12, CPUSystemSeconds: 3.1, CPUIdleSeconds: 40,
		CPUIOWaitSeconds: 0.5, CPUStealSeconds: 0.05, OOMKills: 3, BootTime: 1700000000}
	if s.Node != want {
		t.Errorf("\n got %+v\nwant %+v", s.Node, want)
	}
}

// TestRealNode checks the node collector on this machine's /proc against
// the kernel's sysinfo(2).
func TestRealNode(t *testing.T) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		t.Fatal(err)
	}
	n := sample(t, realAgent(t, Config{})).Node
	if want := uint64(si.Totalram) * uint64(si.Unit); n.MemTotalBytes != want {
		t.Errorf("MemTotal: got %d, want sysinfo's %d", n.MemTotalBytes, want)
	}
	boot := time.Now().Unix() - int64(si.Uptime)
	if d := int64(n.BootTime) - boot; d < -2 || d > 2 {
		t.Errorf("boot time: got %d, want %d ± 2 s from sysinfo's uptime", n.BootTime, boot)
	}
	if n.MemAvailableBytes == 0 || n.MemAvailableBytes > n.MemTotalBytes || n.CPUs < 1 || n.CPUUserSeconds <= 0 {
		t.Errorf("got %+v, want 0 < MemAvailable <= MemTotal, CPUs >= 1, user CPU time > 0", n)
	}
	if load := float64(si.Loads[0]) / 65536; n.Load1 < load-1 || n.Load1 > load+1 {
		t.Errorf("load1: got %v, want about sysinfo's %v", n.Load1, load)
	}
}

package agent

import (
	"path/filepath"
	"testing"
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

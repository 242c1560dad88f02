package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestContainerCollectorFixture(t *testing.T) {
	tests := []struct {
		node string
		pid  int
		want Container
	}{
		{"node1", 100, Container{CgroupVersion: 2, Path: "/kubepods/burstable/pod1/ctr-exec7", MemoryLimitBytes: 6442450944,
			MemoryUsageBytes: 2300000000, OOMKills: 1, CPUQuotaCores: 4, CPUPeriods: 5000, CPUThrottledPeriods: 250, CPUThrottledSeconds: 12.5}},
		// The container has no limit of its own; its pod's limit applies.
		{"node1", 200, Container{CgroupVersion: 2, Path: "/kubepods/burstable/pod2/ctr-driver", MemoryLimitBytes: 2147483648,
			MemoryUsageBytes: 1100000000}},
		{"node1", 300, Container{CgroupVersion: 2, Path: "/system.slice/spark-worker.service", MemoryUsageBytes: 1200000000}},
		{"node2", 511, Container{CgroupVersion: 1, Path: "/hadoop-yarn/container_e17_1410901177871_0001_01_000005",
			MemoryLimitBytes: 10737418240, MemoryUsageBytes: 9500000000, CPUQuotaCores: 5, CPUPeriods: 1000,
			CPUThrottledPeriods: 30, CPUThrottledSeconds: 4.5}},
		// v1 "unlimited" (near 2^63) is no limit.
		{"node2", 500, Container{CgroupVersion: 1, Path: "/hadoop-yarn", MemoryUsageBytes: 10000000000}},
	}
	for _, tt := range tests {
		t.Run(filepath.Join(tt.node, tt.want.Path), func(t *testing.T) {
			p := byPID(sample(t, fixtureAgent(t, filepath.Join("testdata", tt.node), Config{})))[tt.pid]
			if p.Container == nil {
				t.Fatalf("pid %d: no container", tt.pid)
			}
			got := *p.Container
			got.memDir = ""
			if got != tt.want {
				t.Errorf("pid %d:\n got %+v\nwant %+v", tt.pid, got, tt.want)
			}
		})
	}
}

func TestParseCgroupFiles(t *testing.T) {
	limits := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"max\n", 0, false}, {"9223372036854771712\n", 0, false}, {"1073741824\n", 1073741824, true},
		{"", 0, false}, {"-1", 0, false}, {"junk", 0, false},
	}
	for _, l := range limits {
		if got, ok := parseLimit([]byte(l.in)); got != l.want || ok != l.ok {
			t.Errorf("parseLimit(%q): got %d %v, want %d %v", l.in, got, ok, l.want, l.ok)
		}
	}
	cpus := []struct {
		in   string
		want float64
	}{{"max 100000\n", 0}, {"150000 100000\n", 1.5}, {"1 0", 0}, {"x y", 0}, {"", 0}}
	for _, c := range cpus {
		if got := parseCPUMax([]byte(c.in)); got != c.want {
			t.Errorf("parseCPUMax(%q): got %v, want %v", c.in, got, c.want)
		}
	}
	b := []byte("oom 2\noom_kill 1\nbad\nneg -1\n  spaced   7 \n")
	for key, want := range map[string]uint64{"oom": 2, "oom_kill": 1, "spaced": 7} {
		if got, ok := keyed(b, key); !ok || got != want {
			t.Errorf("keyed %s: got %d, %v; want %d", key, got, ok, want)
		}
	}
	for _, key := range []string{"bad", "neg", "missing", "oom_k"} {
		if got, ok := keyed(b, key); ok {
			t.Errorf("keyed %s: got %d, want none", key, got)
		}
	}
}

func FuzzCgroupFiles(f *testing.F) {
	for _, s := range []string{"max\n", "9223372036854771712\n", "150000 100000\n", "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\n",
		"oom_kill_disable 0\nunder_oom 0\noom_kill 0\n", "nr_periods 1000\nnr_throttled 30\nthrottled_time 4500000000\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, ok := parseLimit(b); !ok && v != 0 {
			t.Errorf("parseLimit(%q): no limit but value %d", b, v)
		}
		if c := parseCPUMax(b); c < 0 {
			t.Errorf("parseCPUMax(%q) = %v, want >= 0", b, c)
		}
		for _, key := range []string{"oom_kill", "nr_periods", "throttled_usec"} {
			if n, ok := keyed(b, key); !ok && n != 0 {
				t.Errorf("keyed(%q, %s): no value but %d", b, key, n)
			}
		}
	})
}

// TestContainerSeenFromAnotherCgroupNamespace: an agent in its own cgroup
// namespace sees other containers' cgroup paths climb above its root; it
// reads their cgroup through the process's own root filesystem instead.
func TestContainerSeenFromAnotherCgroupNamespace(t *testing.T) {
	root := copyFixture(t, "node1")
	files := map[string]string{
		"proc/100/cgroup": "0::/../../kubepods/burstable/pod1/ctr-exec7\n",
		"proc/100/root/sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
		"proc/100/root/sys/fs/cgroup/memory.max":         "1073741824\n",
		"proc/100/root/sys/fs/cgroup/memory.current":     "900000000\n",
		"proc/100/root/sys/fs/cgroup/memory.events":      "oom 0\noom_kill 4\n",
		"proc/100/root/sys/fs/cgroup/cpu.max":            "max 100000\n",
		"proc/100/root/sys/fs/cgroup/cpu.stat":           "nr_periods 0\n",
	}
	for rel, data := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := byPID(sample(t, fixtureAgent(t, root, Config{})))[100].Container
	if c == nil || c.MemoryLimitBytes != 1073741824 || c.MemoryUsageBytes != 900000000 || c.OOMKills != 4 {
		t.Errorf("got %+v, want the container's own view: limit 1073741824, usage 900000000, 4 OOM kills", c)
	}
}

// TestContainerLimitsReread: a cgroup's usage is read every cycle, its
// limits (memory.max, cpu.max) once a minute — a resized container shows
// its new limit within limitsEvery.
func TestContainerLimitsReread(t *testing.T) {
	root := copyFixture(t, "node1")
	a := fixtureAgent(t, root, Config{})
	p, err := a.fs.Proc(100)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "sys/fs/cgroup/kubepods/burstable/pod1/ctr-exec7")
	write := func(name, v string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := &known{}
	t0 := time.Unix(1_800_000_000, 0)
	c := a.cont.collect(p, k, t0, nil, map[string]int{})
	if c.MemoryLimitBytes != 6442450944 || c.CPUQuotaCores != 4 {
		t.Fatalf("first read: %+v", c)
	}
	write("memory.max", "8589934592\n")
	write("cpu.max", "600000 100000\n")
	write("memory.current", "2400000000\n")
	c = a.cont.collect(p, k, t0.Add(10*time.Second), nil, map[string]int{})
	if c.MemoryUsageBytes != 2400000000 || c.MemoryLimitBytes != 6442450944 || c.CPUQuotaCores != 4 {
		t.Errorf("10 s later: %+v, want the new usage and the limits of the first read", c)
	}
	c = a.cont.collect(p, k, t0.Add(limitsEvery), nil, map[string]int{})
	if c.MemoryLimitBytes != 8589934592 || c.CPUQuotaCores != 6 {
		t.Errorf("a minute later: %+v, want the resized limits", c)
	}
}

// TestContainerReadOncePerCycle: the processes of one cgroup share its
// reading within a cycle (a change between them is not seen until the next
// cycle), and the next cycle reads it again.
func TestContainerReadOncePerCycle(t *testing.T) {
	root := copyFixture(t, "node1")
	a := fixtureAgent(t, root, Config{})
	p, err := a.fs.Proc(100)
	if err != nil {
		t.Fatal(err)
	}
	usage := filepath.Join(root, "sys/fs/cgroup/kubepods/burstable/pod1/ctr-exec7", "memory.current")
	t0 := time.Unix(1_800_000_000, 0)
	cycle := map[[2]string]Container{}
	first := a.cont.collect(p, &known{}, t0, cycle, map[string]int{})
	if err := os.WriteFile(usage, []byte("2400000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := a.cont.collect(p, &known{}, t0, cycle, map[string]int{})
	if first == nil || second == nil || *second != *first {
		t.Errorf("a second process of the cgroup in the same cycle: got %+v, want the first's %+v", second, first)
	}
	second.MemoryUsageBytes = 1
	if again := a.cont.collect(p, &known{}, t0, cycle, map[string]int{}); again.MemoryUsageBytes == 1 {
		t.Errorf("processes share one Container value: a change to one shows in another")
	}
	next := a.cont.collect(p, &known{}, t0.Add(10*time.Second), map[[2]string]Container{}, map[string]int{})
	if next.MemoryUsageBytes != 2400000000 {
		t.Errorf("next cycle: usage %d, want the new 2400000000", next.MemoryUsageBytes)
	}
}

package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExitEventsFixture(t *testing.T) {
	root := copyFixture(t, "node1")
	a := fixtureAgent(t, root, Config{Host: "node1"})
	if s := sample(t, a); len(s.Events) != 0 {
		t.Fatalf("first sample: got events %+v, want none", s.Events)
	}
	// Executor 7 is OOM-killed inside its container, standalone executor 0
	// exits on its own, and the driver dies while the node's OOM-kill count
	// rises without its cgroup's (killed outside the cgroup's limit).
	for _, pid := range []string{"100", "301", "200"} {
		if err := os.RemoveAll(filepath.Join(root, "proc", pid)); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, data string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/fs/cgroup/kubepods/burstable/pod1/ctr-exec7/memory.events", "low 0\nhigh 0\nmax 20\noom 3\noom_kill 2\n")
	s := sample(t, a)
	got := map[int]Event{}
	for _, ev := range s.Events {
		got[ev.PID] = ev
	}
	if len(s.Events) != 3 {
		t.Fatalf("got %d events, want 3: %+v", len(s.Events), s.Events)
	}
	if ev := got[100]; ev.Type != EventExit || ev.Cause != CauseOOMKill || ev.AppID != "app-20240101000000-0001" || ev.ExecutorID != "7" ||
		ev.Last == nil || ev.Last.RSSBytes != 2000000*1024 || !strings.Contains(ev.Detail, "oom_kill 1 → 2") {
		t.Errorf("executor 7: got %+v, want oom-kill with its ids, last sample and the counter change", ev)
	}
	if ev := got[301]; ev.Cause != CauseUnknown || ev.ExecutorID != "0" || ev.Last == nil {
		t.Errorf("executor 0: got %+v, want cause unknown with its last sample", ev)
	}
	if ev := got[200]; ev.Cause != CauseUnknown {
		t.Errorf("driver: got cause %q, want unknown (no OOM counter moved)", ev.Cause)
	}
	if s := sample(t, a); len(s.Events) != 0 {
		t.Errorf("third sample: got events %+v, want none", s.Events)
	}
	if ev := a.Events(); len(ev) != 3 || ev[0].PID != 100 {
		t.Errorf("got recent events %+v, want the 3 exits, pid 100 first", ev)
	}
	st := a.Stats()
	if st.Exits[RoleExecutor][CauseOOMKill] != 1 || st.Exits[RoleExecutor][CauseUnknown] != 1 || st.Exits[RoleDriver][CauseUnknown] != 1 {
		t.Errorf("got exit counters %v, want executor oom-kill 1, unknown 1, driver unknown 1", st.Exits)
	}
}

func TestNodeOOMKillFixture(t *testing.T) {
	root := copyFixture(t, "node2")
	a := fixtureAgent(t, root, Config{})
	sample(t, a)
	// The container's cgroup is removed with the process (as YARN and
	// Kubernetes do); only the node's counter tells.
	for _, rel := range []string{"proc/511", "sys/fs/cgroup/memory/hadoop-yarn/container_e17_1410901177871_0001_01_000005"} {
		if err := os.RemoveAll(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "proc", "vmstat"), []byte("oom_kill 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := sample(t, a)
	if len(s.Events) != 1 || s.Events[0].Cause != CauseNodeOOMKill || s.Events[0].AppID != "application_1410901177871_0001" {
		t.Fatalf("got events %+v, want one node-oom-kill for application_1410901177871_0001", s.Events)
	}
	if d := s.Events[0].Detail; !strings.Contains(d, "node oom_kill 3 → 4") || !strings.Contains(d, "cgroup limit") {
		t.Errorf("got detail %q, want the node counter change and the last RSS against the cgroup limit", d)
	}
}

// memoryCgroup creates a child memory cgroup of the test's own, limited to
// limit bytes, and returns the directory whose cgroup.procs takes a pid.
func memoryCgroup(t *testing.T, limit int64) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		missingCgroup(t, err)
	}
	var dir, limitFile string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[1] == "memory" || strings.Contains(","+f[1]+",", ",memory,"):
			dir, limitFile = filepath.Join("/sys/fs/cgroup", f[1], f[2]), "memory.limit_in_bytes"
		case f[0] == "0" && f[1] == "" && dir == "":
			if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
				dir, limitFile = filepath.Join("/sys/fs/cgroup", f[2]), "memory.max"
			}
		}
	}
	if dir == "" {
		missingCgroup(t, fmt.Errorf("no memory controller in /proc/self/cgroup"))
	}
	child := filepath.Join(dir, fmt.Sprintf("sparkdx-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(child, 0o755); err != nil {
		missingCgroup(t, err)
	}
	t.Cleanup(func() {
		// The cgroup can only go once its processes are gone.
		for i := 0; i < 50; i++ {
			if os.Remove(child) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove %s", child)
	})
	if err := os.WriteFile(filepath.Join(child, limitFile), []byte(fmt.Sprint(limit)), 0o644); err != nil {
		missingCgroup(t, err)
	}
	return child
}

func missingCgroup(t *testing.T, err error) {
	t.Helper()
	t.Logf("cannot create a memory cgroup: %v", err)
	// sparktest.Missing fails in CI, where the runner is root.
	skipOrFail(t, "a writable memory cgroup (run as root)")
}

// TestRealOOMKill runs a Spark-named executor in a memory cgroup too small
// for it, lets the kernel's OOM killer end it, and expects the agent to
// report the exit with cause oom-kill and the executor's ids.
func TestRealOOMKill(t *testing.T) {
	cg := memoryCgroup(t, 160<<20)
	prefix := []string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cg}
	p := startJVM(t, prefix, []string{"-Xmx1g", "-Xms16m", "-XX:+UseSerialGC"}, executorClass, executorArgs("app-oom", "9")...)
	a := realAgent(t, Config{})
	first := waitFor(t, a, p.PID, "in the test cgroup", func(p Process) bool {
		return p.Container != nil && p.Container.MemoryLimitBytes == 160<<20
	})
	if !strings.HasSuffix(first.Container.Path, filepath.Base(cg)) {
		t.Errorf("got cgroup %q, want one ending in %s", first.Container.Path, filepath.Base(cg))
	}
	fmt.Fprintln(p.Stdin, "grow")
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("executor exited: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("executor not killed within 60s")
	}
	s := sample(t, a)
	var ev *Event
	for i := range s.Events {
		if s.Events[i].PID == p.PID {
			ev = &s.Events[i]
		}
	}
	if ev == nil {
		t.Fatalf("no event for pid %d: %+v", p.PID, s.Events)
	}
	if ev.Type != EventExit || ev.Cause != CauseOOMKill || ev.AppID != "app-oom" || ev.ExecutorID != "9" || ev.Last == nil {
		t.Errorf("got %+v, want process-exit, oom-kill, app-oom, executor 9, with the last sample", *ev)
	}
}

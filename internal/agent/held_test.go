package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// heldPaths lists the /proc/<pid>/ files this process has open, by pid.
func heldPaths(t *testing.T) map[int][]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	out := map[int][]string{}
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || !strings.HasPrefix(target, "/proc/") {
			continue
		}
		parts := strings.Split(target, "/")
		if pid, err := strconv.Atoi(parts[2]); err == nil {
			out[pid] = append(out[pid], target)
		}
	}
	return out
}

// TestAgentHoldsProcFilesOfLiveProcesses: on the real /proc, the agent
// keeps the stat of the processes it reads every cycle open between cycles,
// and closes them once the processes are gone.
func TestAgentHoldsProcFilesOfLiveProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip(err)
	}
	a, err := New(Config{Host: "held"})
	if err != nil {
		t.Fatal(err)
	}
	var sleeps []*exec.Cmd
	for range 3 {
		c := exec.Command("sleep", "60")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Process.Kill()
		sleeps = append(sleeps, c)
	}
	ctx := context.Background()
	for range 2 {
		if _, err := a.Sample(ctx); err != nil {
			t.Fatal(err)
		}
	}
	held := heldPaths(t)
	for _, c := range sleeps {
		if want := "/proc/" + strconv.Itoa(c.Process.Pid) + "/stat"; len(held[c.Process.Pid]) != 1 || held[c.Process.Pid][0] != want {
			t.Errorf("sleep %d: the agent holds %v, want %s", c.Process.Pid, held[c.Process.Pid], want)
		}
	}
	for _, c := range sleeps {
		c.Process.Kill()
		c.Wait()
	}
	if _, err := a.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	held = heldPaths(t)
	for _, c := range sleeps {
		if files := held[c.Process.Pid]; len(files) > 0 {
			t.Errorf("sleep %d exited; the agent still holds %v", c.Process.Pid, files)
		}
	}
}

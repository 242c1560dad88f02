package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// memoryCgroup creates a child of the test's memory cgroup (v1 or v2)
// limited to limit bytes and returns its directory; the executor JVM runs
// in it so the container-limit queries have a limit to read.
func memoryCgroup(t *testing.T, limit int64) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		sparktest.Missing(t, "a memory cgroup: "+err.Error())
	}
	var dir, limitFile string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case strings.Contains(","+f[1]+",", ",memory,"):
			dir, limitFile = filepath.Join("/sys/fs/cgroup", f[1], f[2]), "memory.limit_in_bytes"
		case f[0] == "0" && f[1] == "" && dir == "":
			if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
				dir, limitFile = filepath.Join("/sys/fs/cgroup", f[2]), "memory.max"
			}
		}
	}
	if dir == "" {
		sparktest.Missing(t, "a memory cgroup controller in /proc/self/cgroup")
	}
	child := filepath.Join(dir, fmt.Sprintf("sparkdx-deploy-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(child, 0o755); err != nil {
		sparktest.Missing(t, "a writable memory cgroup (run as root): "+err.Error())
	}
	t.Cleanup(func() {
		for range 50 {
			if os.Remove(child) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove %s", child)
	})
	if err := os.WriteFile(filepath.Join(child, limitFile), []byte(fmt.Sprint(limit)), 0o644); err != nil {
		sparktest.Missing(t, "a writable memory cgroup: "+err.Error())
	}
	return child
}

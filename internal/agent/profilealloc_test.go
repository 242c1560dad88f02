package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/profile"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestProfileAlloc: with ProfileAlloc an executor whose task thread of
// stage 4 allocates in sdx.Load.churn gets an allocation profile beside
// its CPU files: `go tool pprof` reads it as alloc_space with churn on
// top, sparkdx reads stage 4's bytes as churn's, and the CPU profiles
// that analyze and serve read leave it out.
func TestProfileAlloc(t *testing.T) {
	sparktest.Live(t)
	const app = "app-20261128100000-0039"
	exe := startJVM(t, nil, []string{"-Xmx64m", "-Dsdx.alloc=true"}, executorClass, executorArgs(app, "5")...)
	dir := t.TempDir()
	runProfiles(t, Config{Interval: 500 * time.Millisecond, ProfileEvery: 3 * time.Second, ProfileDuration: 2 * time.Second, ProfileDir: dir,
		ProfileApps: []string{app}, ProfileAlloc: true}, 1)

	allocs, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("%s-5-pid%d-*%s", app, exe.PID, ProfileAllocSuffix)))
	if len(allocs) == 0 {
		t.Fatalf("no %s file in %s", ProfileAllocSuffix, dir)
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	top, err := exec.Command(goTool, "tool", "pprof", "-top", allocs[0]).CombinedOutput()
	if err != nil || !strings.Contains(string(top), "Type: alloc_space") || !strings.Contains(string(top), "sdx.Load.churn") {
		t.Errorf("go tool pprof -top %s: %v, want alloc_space with sdx.Load.churn in:\n%s", allocs[0], err, top)
	}
	t.Logf("go tool pprof -top:\n%s", top[:min(len(top), 700)])
	f, err := os.Open(allocs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := &profile.Profile{Kind: profile.Alloc}
	if err := profile.ReadPprof(p, f, allocs[0], app); err != nil {
		t.Fatal(err)
	}
	if st := p.Stage(4); st.Total() < 1<<20 || st.Top(1)[0].Frame != "sdx.Load.churn" {
		t.Errorf("stage 4: got %d bytes, top %v; want a MiB or more, most in sdx.Load.churn", st.Total(), st.Top(1))
	}
	cpu, err := profile.AppFiles(dir, app)
	for _, name := range cpu {
		if strings.HasSuffix(name, ProfileAllocSuffix) {
			t.Errorf("the CPU profiles list %s", name)
		}
	}
	if err != nil || len(cpu) == 0 {
		t.Errorf("got CPU profiles %v, %v; want the recording's", cpu, err)
	}
}

package agent

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestProfilePrune: the newest profiles that fit in the bound stay, an
// older file never outlives a newer one, the files just written stay
// whatever their size, and files that are not profiles are left alone.
func TestProfilePrune(t *testing.T) {
	base := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	files := []struct {
		name string
		size int
		age  time.Duration
	}{
		{"a-1-pid1-t1" + ProfilePprofSuffix, 400, 5 * time.Minute},
		{"a-1-pid1-t1" + ProfileCollapsedSuffix, 100, 5 * time.Minute},
		{"a-2-pid2-t2" + ProfilePprofSuffix, 300, 3 * time.Minute},
		{"a-2-pid2-t2" + ProfileCollapsedSuffix, 50, 3 * time.Minute},
		{"a-1-pid1-t3" + ProfilePprofSuffix, 600, time.Minute},
		{"a-1-pid1-t3" + ProfileCollapsedSuffix, 200, time.Minute},
		{"notes.txt", 5000, time.Hour},
	}
	for _, tc := range []struct {
		max     int64
		keep    []string
		want    []string // files left, sorted
		removed int
	}{
		{1 << 20, nil, []string{"a-1-pid1-t1", "a-1-pid1-t1", "a-1-pid1-t3", "a-1-pid1-t3", "a-2-pid2-t2", "a-2-pid2-t2"}, 0},
		// 800 + 350 = 1150 fit; the oldest pair does not, not even its
		// 100-byte collapsed file, which would fit alone.
		{1200, nil, []string{"a-1-pid1-t3", "a-1-pid1-t3", "a-2-pid2-t2", "a-2-pid2-t2"}, 2},
		{1, []string{"a-1-pid1-t3" + ProfilePprofSuffix, "a-1-pid1-t3" + ProfileCollapsedSuffix}, []string{"a-1-pid1-t3", "a-1-pid1-t3"}, 4},
	} {
		t.Run(strconv.FormatInt(tc.max, 10), func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range files {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, make([]byte, f.size), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, base.Add(-f.age), base.Add(-f.age)); err != nil {
					t.Fatal(err)
				}
			}
			pr := &profiler{dir: dir, maxBytes: tc.max}
			removed, kept, err := pr.prune(tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			var size int64
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() == "notes.txt" {
					continue
				}
				fi, _ := e.Info()
				size += fi.Size()
				stem, _, _ := strings.Cut(e.Name(), ".")
				left = append(left, stem)
			}
			slices.Sort(left)
			if !slices.Equal(left, tc.want) || removed != tc.removed || kept != size {
				t.Errorf("got %v left (%d bytes, %d said), %d removed; want %v, %d removed", left, size, kept, removed, tc.want, tc.removed)
			}
			if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
				t.Errorf("a file that is not a profile was touched: %v", err)
			}
		})
	}
}

// runProfiles runs the agent until it has written n recordings, and
// returns its log.
func runProfiles(t *testing.T, cfg Config, n uint64) (*Agent, string) {
	t.Helper()
	var log sparktest.SyncBuffer
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	a := realAgent(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, nil) }()
	deadline := time.Now().Add(4 * time.Minute)
	for a.Stats().Profile.Written < n && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := a.Stats().Profile.Written; got < n {
		t.Fatalf("got %d recordings within 4 minutes, want %d; log:\n%s", got, n, log.String())
	}
	return a, log.String()
}

// TestProfileSchedule: three Spark-named JVMs of one application, an
// executor and the driver busy in sdx.Load.burn on a thread named for a
// task of stage 3, and an executor that disallows attach. The agent's
// schedule records the first two round after round, one at a time: the
// collapsed stacks put burn under stage 3, the pprof file (read by `go
// tool pprof`) carries the application, executor and role labels, the
// files are named by application and executor id; the third JVM's
// failure is logged once however many rounds pass and stops nothing. A
// byte bound of 1 then keeps only the last recording's files.
func TestProfileSchedule(t *testing.T) {
	sparktest.Live(t)
	const app = "app-20261128100000-0038"
	hot := []string{"-Xmx64m", "-Dsdx.hot=true"}
	exe := startJVM(t, nil, hot, executorClass, executorArgs(app, "3")...)
	drv := startJVM(t, nil, append(hot, "-Dspark.app.id="+app), driverClass, "--master", "spark://127.0.0.1:7077", "--class", "org.example.Job", "job.jar")
	off := startJVM(t, nil, []string{"-Xmx64m", "-XX:+DisableAttachMechanism"}, executorClass, executorArgs(app, "4")...)
	dir := t.TempDir()
	cfg := Config{Interval: 500 * time.Millisecond, ProfileEvery: 3 * time.Second, ProfileDuration: 2 * time.Second, ProfileDir: dir,
		ProfileApps: []string{app}}
	a, log := runProfiles(t, cfg, 4)

	st := a.Stats().Profile
	t.Logf("%d recordings, agent CPU %.3f s in all, %.3f s for the last; last recording's files %d bytes", st.Written, st.CPUSeconds,
		st.LastCPUSeconds, st.LastBytes)
	if st.Failed != 1 || st.LastCPUSeconds <= 0 || st.LastBytes <= 0 {
		t.Errorf("got %d failures, last cpu %v s, last bytes %d; want 1 failure (the JVM that disallows attach), cpu and bytes above 0",
			st.Failed, st.LastCPUSeconds, st.LastBytes)
	}
	if n := strings.Count(log, "level=WARN msg=profile pid="+strconv.Itoa(off.PID)+" "); n != 1 || !strings.Contains(log, "DisableAttachMechanism") {
		t.Errorf("got %d warnings for pid %d, want 1 naming DisableAttachMechanism; log:\n%s", n, off.PID, log)
	}
	for _, j := range []struct {
		pid  int
		exec string
	}{{exe.PID, "3"}, {drv.PID, "driver"}} {
		stem := fmt.Sprintf("%s-%s-pid%d-", app, j.exec, j.pid)
		pb, _ := filepath.Glob(filepath.Join(dir, stem+"*"+ProfilePprofSuffix))
		col, _ := filepath.Glob(filepath.Join(dir, stem+"*"+ProfileCollapsedSuffix))
		if len(pb) < 2 || len(col) != len(pb) {
			t.Errorf("%s: got %d pprof and %d collapsed files, want one of each per round, two rounds at least", stem, len(pb), len(col))
			continue
		}
		for _, f := range col {
			checkBurn(t, f)
		}
		checkPprof(t, pb[0], app, j.exec)
	}

	w := httptest.NewRecorder()
	a.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`sparkdx_agent_profile_recordings_total{host="`, `outcome="written"} ` + strconv.FormatUint(st.Written, 10),
		"sparkdx_agent_profile_cpu_seconds_total{", "sparkdx_agent_profile_dir_bytes{"} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	cfg.ProfileMaxBytes = 1
	b, _ := runProfiles(t, cfg, 2)
	left, _ := os.ReadDir(dir)
	if len(left) != 2 || strings.TrimSuffix(left[0].Name(), ProfileCollapsedSuffix) != strings.TrimSuffix(left[1].Name(), ProfilePprofSuffix) {
		t.Errorf("after recordings bound to 1 byte: got %v, want one recording's two files", left)
	}
	if rm := b.Stats().Profile.Removed; rm < 2*st.Written {
		t.Errorf("got %d files removed, want at least the %d the first agent wrote", rm, 2*st.Written)
	}
}

// checkBurn reads a collapsed file: stage 3's samples (the hot thread's
// task) must mostly end in sdx.Load.burn.
func checkBurn(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stage, burn int64
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		i := strings.LastIndexByte(line, ' ')
		stack := line[:max(i, 0)]
		v, _ := strconv.ParseInt(line[i+1:], 10, 64)
		if strings.HasPrefix(stack, "stage 3;") {
			stage += v
			if strings.HasSuffix(stack, ";sdx.Load.burn") {
				burn += v
			}
		}
	}
	if stage < 10 || float64(burn) < 0.5*float64(stage) {
		t.Errorf("%s: got %d of stage 3's %d samples in sdx.Load.burn, want at least half of 10 or more", filepath.Base(file), burn, stage)
	}
}

// checkPprof has `go tool pprof` read a pprof file: burn on top, the
// labels naming the JVM.
func checkPprof(t *testing.T, file, app, execID string) {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	top, err := exec.Command(goTool, "tool", "pprof", "-top", file).CombinedOutput()
	if err != nil || !strings.Contains(string(top), "sdx.Load.burn") {
		t.Errorf("go tool pprof -top %s: %v, want sdx.Load.burn in:\n%s", file, err, top)
	}
	tags, err := exec.Command(goTool, "tool", "pprof", "-tags", file).CombinedOutput()
	for _, want := range []string{"app_id:", app, "executor_id:", ": " + execID + "\n", "role:", "stage:"} {
		if err != nil || !strings.Contains(string(tags), want) {
			t.Errorf("go tool pprof -tags %s: %v, want %q in:\n%s", file, err, want, tags)
		}
	}
}

package hsperf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// compile compiles testdata/Workload.java with the JDK's javac.
func compile(t testing.TB, home string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("testdata", "Workload.java"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparktest.CompileJava(filepath.Join(home, "bin", "javac"), dir, src); err != nil {
		t.Fatal(err)
	}
	return dir
}

// workload is a running testdata/Workload.java.
type workload struct {
	cmd   *exec.Cmd
	pid   int // on the host
	in    io.WriteCloser
	lines *bufio.Scanner
}

// startWorkload runs argv (java ... Workload, maybe behind a wrapper) and
// waits for its first "ok".
func startWorkload(t testing.TB, argv []string, env ...string) *workload {
	t.Helper()
	w := startWorkloadNoWait(t, argv, env...)
	w.do(t)
	return w
}

// do sends commands one at a time and waits for each "ok"; with none it
// waits for the start-up "ok".
func (w *workload) do(t testing.TB, cmds ...string) {
	t.Helper()
	wait := func(what string) {
		if !w.lines.Scan() {
			t.Fatalf("workload exited during %q: %v", what, w.lines.Err())
		}
		if got := w.lines.Text(); got != "ok" {
			t.Fatalf("workload answered %q to %q", got, what)
		}
	}
	if len(cmds) == 0 {
		wait("start")
	}
	for _, c := range cmds {
		if _, err := fmt.Fprintln(w.in, c); err != nil {
			t.Fatal(err)
		}
		wait(c)
	}
}

// settle waits until the JVM's collectors stop (concurrent collectors go on
// after the last allocation), so that a snapshot and a jstat sample taken
// one after the other see the same heap.
func settle(t *testing.T, path string) {
	t.Helper()
	var last string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var sig strings.Builder
		for _, c := range s.JVM().Collectors {
			fmt.Fprintf(&sig, "%d:%d ", c.Index, c.Invocations)
		}
		if sig.String() == last {
			return
		}
		last = sig.String()
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("%s: collectors still running after 20s", path)
}

// jstatMatches samples jstat -<option> bracketed by two snapshots and
// compares. A concurrent collector can change a counter twice within one
// jstat run (jstat starts a JVM: about a second); such a sample is taken
// again, up to three times.
func jstatMatches(t *testing.T, home, path string, pid int, option string) {
	t.Helper()
	var bad []string
	for attempt := 0; attempt < 3; attempt++ {
		before, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(filepath.Join(home, "bin", "jstat"), "-"+option, strconv.Itoa(pid)).CombinedOutput()
		if err != nil {
			t.Fatalf("jstat -%s %d: %v\n%s", option, pid, err, out)
		}
		after, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bad = jstatMismatches(t, option, string(out), before, after); len(bad) == 0 {
			return
		}
		t.Logf("attempt %d: %v", attempt+1, bad)
	}
	for _, m := range bad {
		t.Error(m)
	}
}

var collectors = []struct{ name, flag string }{
	{"serial", "-XX:+UseSerialGC"},
	{"parallel", "-XX:+UseParallelGC"},
	{"g1", "-XX:+UseG1GC"},
	{"z", "-XX:+UseZGC"},
	{"shenandoah", "-XX:+UseShenandoahGC"},
}

func TestLiveJVM(t *testing.T) {
	sparktest.Live(t)
	for _, version := range []string{"17", "25"} {
		t.Run("jdk"+version, func(t *testing.T) {
			home := sparktest.JDK(t, version)
			classes := compile(t, home)
			for _, gc := range collectors {
				t.Run(gc.name, func(t *testing.T) {
					liveJVM(t, home, version, classes, gc.flag)
				})
			}
		})
	}
}

func liveJVM(t *testing.T, home, version, classes, gcFlag string) {
	w := startWorkload(t, []string{filepath.Join(home, "bin", "java"), gcFlag, "-Xmx256m", "-cp", classes, "Workload"})
	w.do(t, "threads 5", "alloc 64", "classes 300", "gc", "drop", "gc", "classes 50", "alloc 24")

	path, err := FindFile("/proc", w.pid)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(os.TempDir(), "hsperfdata_"+currentUser(t), strconv.Itoa(w.pid))
	if !sameFile(path, want) {
		t.Errorf("FindFile: got %s, want the file %s", path, want)
	}
	settle(t, path)
	jstatMatches(t, home, path, w.pid, "gc")
	jstatMatches(t, home, path, w.pid, "class")

	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Partial != nil {
		t.Errorf("got Partial %v", s.Partial)
	}
	j := s.JVM()
	if j.PID != w.pid {
		t.Errorf("got PID %d, want %d", j.PID, w.pid)
	}
	checkJVM(t, j, version)

	// The counters are live: more work shows up in the next snapshot.
	w.do(t, "threads 3", "classes 100", "alloc 16", "gc")
	s2, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	j2 := s2.JVM()
	if got := j2.Classes.Loaded - j.Classes.Loaded; got < 100 {
		t.Errorf("got %d more classes loaded, want >= 100", got)
	}
	if got := j2.Threads.Started - j.Threads.Started; got < 3 {
		t.Errorf("got %d more threads started, want >= 3", got)
	}
	if n1, n2 := j.GCCount(), j2.GCCount(); n2 <= n1 {
		t.Errorf("got %d collections after System.gc(), want more than %d", n2, n1)
	}
	if j2.Safepoints.Count <= j.Safepoints.Count {
		t.Errorf("got %d safepoints after System.gc(), want more than %d", j2.Safepoints.Count, j.Safepoints.Count)
	}
}

func currentUser(t testing.TB) string {
	t.Helper()
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// TestLivePerfDataDisabled: a JVM without perf data has no file, and
// FindFile says why.
func TestLivePerfDataDisabled(t *testing.T) {
	sparktest.Live(t)
	home := sparktest.JDK(t, "17")
	classes := compile(t, home)
	java := filepath.Join(home, "bin", "java")
	tests := []struct {
		name string
		argv []string
		env  []string
	}{
		{"flag", []string{java, "-XX:-UsePerfData", "-cp", classes, "Workload"}, nil},
		{"JAVA_TOOL_OPTIONS", []string{java, "-cp", classes, "Workload"}, []string{"JAVA_TOOL_OPTIONS=-XX:-UsePerfData"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := startWorkload(t, tt.argv, tt.env...)
			_, err := FindFile("/proc", w.pid)
			if !errors.Is(err, ErrPerfDataDisabled) || !strings.Contains(err.Error(), "-XX:-UsePerfData") {
				t.Errorf("got %v, want %v naming -XX:-UsePerfData", err, ErrPerfDataDisabled)
			}
		})
	}
	// A process that is not a JVM at all.
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	if _, err := FindFile("/proc", sleep.Process.Pid); !errors.Is(err, ErrNotJVM) {
		t.Errorf("sleep: got %v, want %v", err, ErrNotJVM)
	}
}

// TestLiveContainer runs the JVM in its own pid and mount namespaces with
// a private /tmp, as in a container: its file is named after its pid in
// the namespace and only visible through /proc/<pid>/root.
func TestLiveContainer(t *testing.T) {
	sparktest.Live(t)
	home := sparktest.JDK(t, "17")
	unshare := sparktest.Program(t, "unshare")
	if out, err := exec.Command(unshare, "--pid", "--fork", "--mount", "true").CombinedOutput(); err != nil {
		sparktest.Missing(t, fmt.Sprintf("pid and mount namespaces (unshare needs CAP_SYS_ADMIN): %v %s", err, out))
	}
	classes := compile(t, home)
	// The private /tmp hides t.TempDir(); the shell's working directory
	// still reaches the classes underneath it, to copy them into the new /tmp.
	script := fmt.Sprintf("cd %s && mount -t tmpfs tmpfs /tmp && cp -r . /tmp/classes && "+
		"exec %s -XX:+UseSerialGC -Xmx64m -cp /tmp/classes Workload",
		classes, filepath.Join(home, "bin", "java"))
	w := startWorkload(t, []string{unshare, "--pid", "--fork", "--mount", "--mount-proc", "sh", "-c", script})
	java := childPID(t, w.pid)
	w.do(t, "threads 5", "alloc 8", "classes 300", "gc", "drop", "gc")

	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", java))
	if err != nil {
		t.Fatal(err)
	}
	nspid := InnermostPID(status, java)
	if nspid == java {
		t.Fatalf("java pid %d is the same in its namespace", java)
	}
	path, err := FindFile("/proc", java)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("/proc/%d/root/tmp/hsperfdata_%s/%d", java, currentUser(t), nspid)
	if path != want {
		t.Errorf("got %s, want %s", path, want)
	}
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.PID != nspid {
		t.Errorf("got PID %d, want %d (the pid in the container)", s.PID, nspid)
	}
	j := s.JVM()
	if j.MainClass != "Workload" || j.Classes.Unloaded < 300 {
		t.Errorf("got main class %q, %d classes unloaded, want Workload and >= 300", j.MainClass, j.Classes.Unloaded)
	}
}

// childPID returns the only child of pid (unshare --fork's child), waiting
// for it to appear.
func childPID(t *testing.T, pid int) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if err == nil {
			if f := strings.Fields(string(b)); len(f) == 1 {
				n, err := strconv.Atoi(f[0])
				if err == nil {
					return n
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pid %d has no single child", pid)
	return 0
}

// TestLiveStartup reads the file of a starting JVM as fast as it can: every
// read is a usable snapshot (maybe not yet accessible, maybe ending in a
// half-written entry) or, before the JVM writes the prologue, an
// ErrNotInitialized; nothing else.
func TestLiveStartup(t *testing.T) {
	sparktest.Live(t)
	home := sparktest.JDK(t, "17")
	classes := compile(t, home)
	w := startWorkloadNoWait(t, []string{filepath.Join(home, "bin", "java"), "-cp", classes, "Workload"})
	path := filepath.Join(os.TempDir(), "hsperfdata_"+currentUser(t), strconv.Itoa(w.pid))
	states := map[string]int{}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		s, err := ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			states["no file yet"]++
			continue
		case errors.Is(err, ErrNotInitialized):
			states["prologue not written"]++
			continue
		case err != nil:
			t.Fatalf("read %d: %v", len(states), err)
		case !s.Accessible:
			states["not accessible"]++
		case s.Partial != nil:
			states["accessible, partial"]++
		default:
			states["complete"]++
		}
		if s.Partial != nil {
			states["partial"]++
			if !strings.Contains(s.Partial.Error(), path+" offset ") {
				t.Errorf("Partial %v does not name the file and offset", s.Partial)
			}
		}
		if _, ok := s.String("sun.rt.javaCommand"); ok && s.Accessible && s.Partial == nil {
			break
		}
	}
	t.Logf("reads during start-up: %v", states)
	if states["complete"] == 0 {
		t.Fatalf("never read a complete snapshot: %v", states)
	}
	w.do(t)
}

// startWorkloadNoWait starts the workload and returns at once.
func startWorkloadNoWait(t testing.TB, argv []string, env ...string) *workload {
	t.Helper()
	j := sparktest.StartJVM(t, argv, env...)
	return &workload{cmd: j.Cmd, pid: j.PID, in: j.Stdin, lines: j.Lines}
}

// TestLiveCodeCache: the compiler counters hsperfdata has on a real JVM —
// the code bytes compiled grow as the JVM compiles more and never exceed
// the nmethod sizes they are part of; the reserved code cache is the one
// the JVM was started with, and zero when it chose its own.
func TestLiveCodeCache(t *testing.T) {
	sparktest.Live(t)
	home := sparktest.JDK(t, "17")
	classes := compile(t, home)
	java := filepath.Join(home, "bin", "java")
	read := func(pid int) JIT {
		t.Helper()
		path, err := FindFile("/proc", pid)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return s.JVM().JIT
	}
	w := startWorkload(t, []string{java, "-XX:ReservedCodeCacheSize=3m", "-Xmx128m", "-cp", classes, "Workload"})
	before := read(w.pid)
	if before.ReservedCodeCache != 3<<20 {
		t.Errorf("got reserved code cache %d, want 3 MiB from -XX:ReservedCodeCacheSize=3m", before.ReservedCodeCache)
	}
	w.do(t, "alloc 64", "classes 200", "alloc 64", "gc", "alloc 64")
	after := read(w.pid)
	if after.Compiles <= before.Compiles || after.CodeBytes <= before.CodeBytes {
		t.Errorf("got compiles %d → %d, code bytes %d → %d; want both to grow with the work", before.Compiles,
			after.Compiles, before.CodeBytes, after.CodeBytes)
	}
	if after.NMethodBytes < after.CodeBytes {
		t.Errorf("got nmethod bytes %d below their code bytes %d", after.NMethodBytes, after.CodeBytes)
	}

	d := startWorkload(t, []string{java, "-Xmx64m", "-cp", classes, "Workload"})
	if got := read(d.pid).ReservedCodeCache; got != 0 {
		t.Errorf("a JVM without -XX:ReservedCodeCacheSize: got reserved code cache %d, want 0 (its own default)", got)
	}
}

// TestLiveCodeCacheFull fills a real JDK 17 JVM's code cache (2496 KiB,
// the least it takes, flushing off) with thousands of hot methods until
// HotSpot prints "CodeCache is full. Compiler has been disabled." — and
// records what hsperfdata shows of it: the compilation that failed
// (sun.ci.totalBailouts, sun.ci.lastFailedMethod), and no counter of its
// own saying compilation is off.
func TestLiveCodeCacheFull(t *testing.T) {
	sparktest.Live(t)
	home := sparktest.JDK(t, "17")
	dir := t.TempDir()
	var src strings.Builder
	const methods = 4000
	src.WriteString("public class Fill {\n")
	for i := 0; i < methods; i++ {
		fmt.Fprintf(&src, "  static long m%d(long x) { long s = x; for (int j = 0; j < 50; j++) { s = s * 31 + j * %d + (s >>> 7) ^ %d; } return s; }\n", i, i, i)
	}
	src.WriteString("  static long run(long r) { long t = 0;\n")
	for i := 0; i < methods; i++ {
		fmt.Fprintf(&src, "    t += m%d(r);\n", i)
	}
	src.WriteString("    return t; }\n  public static void main(String[] a) throws Exception {\n" +
		"    long t = 0; for (int r = 0; r < 3000; r++) t += run(r);\n" +
		"    System.out.println(\"done \" + t); System.in.read(); }\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "Fill.java"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sparktest.CompileJava(filepath.Join(home, "bin", "javac"), dir, filepath.Join(dir, "Fill.java")); err != nil {
		t.Fatal(err)
	}
	j := sparktest.StartJVM(t, []string{filepath.Join(home, "bin", "java"), "-XX:ReservedCodeCacheSize=2496k",
		"-XX:-SegmentedCodeCache", "-XX:-UseCodeCacheFlushing", "-Xlog:codecache=warning:stdout", "-cp", dir, "Fill"})
	full := false
	for j.Lines.Scan() {
		line := j.Lines.Text()
		full = full || strings.Contains(line, "CodeCache is full. Compiler has been disabled")
		if strings.HasPrefix(line, "done ") {
			break
		}
	}
	if !full {
		t.Fatal("the JVM never said its code cache was full")
	}
	path, err := FindFile("/proc", j.PID)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	jit := s.JVM().JIT
	if jit.Bailouts < 1 || !strings.HasPrefix(jit.LastFailedMethod, "Fill m") || jit.ReservedCodeCache != 2496<<10 {
		t.Errorf("got %+v, want a bailout of one of Fill's methods and the 2496 KiB reserve", jit)
	}
	for _, e := range s.Entries {
		if n := strings.ToLower(e.Name); strings.Contains(n, "codecache") || strings.Contains(n, "code_cache") ||
			strings.Contains(n, "codeheap") || strings.Contains(n, "compilation.disabled") {
			t.Errorf("hsperfdata has %s: the agent could export it", e.Name)
		}
	}
	t.Logf("code cache full: %+v", jit)
}

package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const (
	executorClass = "org.apache.spark.executor.CoarseGrainedExecutorBackend"
	driverClass   = "org.apache.spark.deploy.SparkSubmit"
)

var javaClasses struct {
	once sync.Once
	dir  string
	err  error
}

// compiledJava compiles testdata/java once per test binary and returns the
// class directory.
func compiledJava(t *testing.T) string {
	t.Helper()
	javac := sparktest.Program(t, "javac")
	javaClasses.once.Do(func() {
		dir, err := os.MkdirTemp("", "sparkdx-agent-java")
		if err != nil {
			javaClasses.err = err
			return
		}
		javaClasses.err = sparktest.CompileJava(javac, dir, "testdata/java")
		javaClasses.dir = dir
	})
	if javaClasses.err != nil {
		t.Fatal(javaClasses.err)
	}
	return javaClasses.dir
}

// jvmProc is a running Spark-named test JVM that obeys commands on stdin.
type jvmProc struct{ *sparktest.JVM }

// startJVM starts a Spark-named JVM (main class and arguments shaped like
// Spark's) and waits until it prints "ready". prefix, when set, runs the
// JVM through another program (sh -c 'echo $$ > cgroup.procs; exec "$@"').
func startJVM(t *testing.T, prefix []string, jvmOpts []string, class string, args ...string) *jvmProc {
	t.Helper()
	java := sparktest.Program(t, "java")
	cp := compiledJava(t)
	argv := append(append(append(append([]string{}, prefix...), java), jvmOpts...), "-cp", cp, class)
	argv = append(argv, args...)
	j := sparktest.StartJVM(t, argv)
	p := &jvmProc{j}
	p.Expect(t, "ready")
	return p
}

// do sends a command and waits for its "done" line.
func (p *jvmProc) do(t *testing.T, cmd string) {
	t.Helper()
	if _, err := fmt.Fprintln(p.Stdin, cmd); err != nil {
		t.Fatal(err)
	}
	p.Expect(t, "done "+strings.Fields(cmd)[0])
}

func executorArgs(appID, execID string) []string {
	return []string{"--driver-url", "spark://CoarseGrainedScheduler@127.0.0.1:7078", "--executor-id", execID,
		"--hostname", "127.0.0.1", "--cores", "2", "--app-id", appID, "--resourceProfileId", "0"}
}

func realAgent(t *testing.T, cfg Config) *Agent {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// waitFor samples until cond holds for the process pid or the time is up.
func waitFor(t *testing.T, a *Agent, pid int, what string, cond func(Process) bool) Process {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := a.Sample(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p, ok := byPID(s)[pid]
		if ok && cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d: %s: not seen within 20s (found: %v, last sample %+v)", pid, what, ok, p)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestRealExecutorWithPythonWorkers(t *testing.T) {
	sparktest.Program(t, "python3")
	py, err := filepath.Abs("testdata/python")
	if err != nil {
		t.Fatal(err)
	}
	exe := startJVM(t, nil, []string{"-Xmx64m", "-XX:+UseSerialGC", "-Dsdx.python=" + py, "-Dsdx.threads=6"},
		executorClass, executorArgs("app-20260101000000-0042", "3")...)
	drv := startJVM(t, nil, []string{"-Xmx64m", "-Dspark.app.id=app-20260101000000-0042"}, driverClass,
		"--master", "spark://127.0.0.1:7077", "--class", "org.example.Job", "job.jar")
	a := realAgent(t, Config{})

	p := waitFor(t, a, exe.PID, "two pyspark.daemon children", func(p Process) bool { return p.Tree[KindPython].Processes == 2 })
	if p.Role != RoleExecutor || p.AppID != "app-20260101000000-0042" || p.ExecutorID != "3" || p.Cores != 2 || p.MainClass != executorClass {
		t.Errorf("got role %q app %q executor %q cores %d class %q, want executor app-20260101000000-0042 3 2 %s",
			p.Role, p.AppID, p.ExecutorID, p.Cores, p.MainClass, executorClass)
	}
	for _, c := range p.Children {
		if c.Kind != KindPython || c.Name != "pyspark.daemon" || c.RSSBytes == 0 {
			t.Errorf("child %d: got kind %q name %q rss %d, want python pyspark.daemon rss > 0", c.PID, c.Kind, c.Name, c.RSSBytes)
		}
	}
	if p.Children[0].PPID != exe.PID || p.Children[1].PPID != p.Children[0].PID {
		t.Errorf("got children %d (ppid %d) and %d (ppid %d), want daemon under %d and its fork under it",
			p.Children[0].PID, p.Children[0].PPID, p.Children[1].PID, p.Children[1].PPID, exe.PID)
	}
	if p.RSSBytes < 10<<20 || p.PSSBytes == 0 || p.RSSPeakBytes < p.RSSBytes || p.Threads < 6 || p.OpenFDs < 3 {
		t.Errorf("got rss %d pss %d peak %d threads %d fds %d, want rss >= 10MiB, pss > 0, peak >= rss, threads >= 6, fds >= 3",
			p.RSSBytes, p.PSSBytes, p.RSSPeakBytes, p.Threads, p.OpenFDs)
	}
	if p.CPUUserSeconds+p.CPUSystemSeconds <= 0 {
		t.Errorf("got cpu %v+%v, want > 0", p.CPUUserSeconds, p.CPUSystemSeconds)
	}
	if start := time.UnixMilli(p.StartTime); time.Since(start) > time.Minute || time.Since(start) < 0 {
		t.Errorf("got start time %v, want within the last minute", start)
	}

	// ps reads the same kernel figures through its own parser.
	if ps := sparktest.Program(t, "ps"); ps != "" {
		out, err := exec.Command(ps, "-o", "rss=,nlwp=", "-p", fmt.Sprint(exe.PID)).Output()
		var rssKB, threads int
		if _, serr := fmt.Sscan(string(out), &rssKB, &threads); err != nil || serr != nil {
			t.Fatalf("ps: %v %v: %q", err, serr, out)
		}
		now := waitFor(t, a, exe.PID, "again", func(Process) bool { return true })
		if r := float64(now.RSSBytes) / float64(rssKB*1024); r < 0.9 || r > 1.1 || now.Threads < threads-3 || now.Threads > threads+3 {
			t.Errorf("got rss %d threads %d, ps says rss %d KiB threads %d", now.RSSBytes, now.Threads, rssKB, threads)
		}
	}

	d := waitFor(t, a, drv.PID, "driver", func(Process) bool { return true })
	if d.Role != RoleDriver || d.AppID != "app-20260101000000-0042" || d.ExecutorID != "driver" {
		t.Errorf("driver: got role %q app %q executor %q, want driver app-20260101000000-0042 driver", d.Role, d.AppID, d.ExecutorID)
	}
}

// TestRealPIDNamespace runs an executor as pid 1 of its own PID namespace
// (as in a container) and expects the agent to see its namespaced pid and
// find its hsperfdata file, which the JVM names after that pid.
func TestRealPIDNamespace(t *testing.T) {
	unshare := sparktest.Program(t, "unshare")
	if out, err := exec.Command(unshare, "--pid", "--fork", "--mount-proc", "true").CombinedOutput(); err != nil {
		skipOrFail(t, fmt.Sprintf("PID namespaces (unshare: %v: %s)", err, out))
	}
	u := startJVM(t, []string{unshare, "--pid", "--fork", "--mount-proc"}, []string{"-Xmx64m"}, executorClass, executorArgs("app-ns", "6")...)
	a := realAgent(t, Config{})
	s := sample(t, a)
	var got *Process
	for i := range s.Processes {
		if s.Processes[i].PPID == u.PID {
			got = &s.Processes[i]
		}
	}
	if got == nil {
		t.Fatalf("no Spark process under unshare (pid %d)", u.PID)
	}
	if got.NSPid != 1 || got.AppID != "app-ns" || got.ExecutorID != "6" {
		t.Errorf("got nsPid %d app %q executor %q, want 1 app-ns 6", got.NSPid, got.AppID, got.ExecutorID)
	}
	if got.JVM == nil || !strings.HasSuffix(got.JVM.HsperfPath, "/1") || got.JVM.ThreadsLive == 0 {
		t.Errorf("got jvm %+v (unavailable: %q), want the namespaced hsperfdata file …/1", got.JVM, got.JVMUnavailable)
	}
}

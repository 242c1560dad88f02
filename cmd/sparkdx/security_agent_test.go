package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// secrets a Spark JVM's command line carries in secAgentSecrets, as the
// red team found them in the agent's /snapshot and /events.
var agentSecrets = []string{"wJalrXUtnFEMI-K7MDENG-bPxRfiCY", "changeit-keystore-pw", "hunter2-jdbc-pw"}

// sparkJVMs compiles the agent's Spark-named test classes and starts an
// executor whose command line holds agentSecrets, and a driver; it
// returns the executor's and the driver's processes.
func sparkJVMs(t *testing.T) (executor, driver *sparktest.JVM) {
	t.Helper()
	java, javac := sparktest.Program(t, "java"), sparktest.Program(t, "javac")
	classes := filepath.Join(t.TempDir(), "classes")
	if err := sparktest.CompileJava(javac, classes, filepath.Join("..", "..", "internal", "agent", "testdata", "java")); err != nil {
		t.Fatal(err)
	}
	const app = "app-20260101000000-0032"
	executor = sparktest.StartJVM(t, []string{java, "-Xmx64m", "-XX:+UseSerialGC",
		"-Dspark.hadoop.fs.s3a.secret.key=" + agentSecrets[0], "-Djavax.net.ssl.keyStorePassword=" + agentSecrets[1],
		"-cp", classes, "org.apache.spark.executor.CoarseGrainedExecutorBackend",
		"--driver-url", "spark://CoarseGrainedScheduler@127.0.0.1:7078", "--executor-id", "1", "--hostname", "127.0.0.1",
		"--cores", "1", "--app-id", app, "--resourceProfileId", "0"})
	executor.Expect(t, "ready")
	driver = sparktest.StartJVM(t, []string{java, "-Xmx64m", "-XX:+UseSerialGC", "-Dspark.app.id=" + app, "-cp", classes,
		"org.apache.spark.deploy.SparkSubmit", "--master", "spark://127.0.0.1:7077",
		"--conf", "spark.jdbc.url=jdbc:postgresql://etl:" + agentSecrets[2] + "@db:5432/warehouse", "--class", "org.example.Job", "job.jar"})
	driver.Expect(t, "ready")
	return executor, driver
}

// agentOnce runs `sparkdx agent --once` and returns its JSON and its peak
// RSS in bytes.
func agentOnce(t *testing.T, bin string) ([]byte, int64) {
	t.Helper()
	cmd := exec.Command(bin, "agent", "--once", "--format", "json", "--spark-rest-interval", "0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent --once: %v\n%s", err, errb.String())
	}
	return out.Bytes(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// secAgentSecrets (item 1): the JVMs' secrets reach neither `agent --once`
// nor /snapshot or /events (an exit event kept after the driver is gone),
// which answer only with the token.
func secAgentSecrets(t *testing.T, bin string) {
	_, driver := sparkJVMs(t)
	out, _ := agentOnce(t, bin)
	if !bytes.Contains(out, []byte("CoarseGrainedExecutorBackend")) || !bytes.Contains(out, []byte("(redacted)")) {
		t.Errorf("agent --once: no executor with a redacted command line in %.1000s", out)
	}
	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("s3cret\n"), 0o600)
	addr := sparktest.FreeAddr(t)
	agent := exec.Command(bin, "agent", "--listen", addr, "--interval", "500ms", "--spark-rest-interval", "0", "--auth-token-file", tok)
	var stderr bytes.Buffer
	agent.Stderr = &stderr
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	base := "http://" + addr
	var snap []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if code, b, _, _ := tryRequest("GET", base+"/snapshot", nil, 64<<20, "Authorization", "Bearer s3cret"); code == 200 && bytes.Contains(b, []byte("SparkSubmit")) {
			snap = b
			break
		}
		if agent.ProcessState != nil {
			break
		}
	}
	if snap == nil {
		t.Fatalf("no snapshot with the driver; agent stderr:\n%s", stderr.String())
	}
	for _, p := range []string{"/snapshot", "/events", "/metrics"} {
		if code, b := get(t, base+p); code != 401 || bytes.Contains(b, []byte("java")) {
			t.Errorf("GET %s without the token: %d %.200s, want 401", p, code, b)
		}
	}
	// The driver exits (and is reaped: a zombie still shows in /proc):
	// its last sample goes into an exit event.
	driver.Stdin.Close()
	reaped := make(chan error, 1)
	go func() { reaped <- driver.Cmd.Wait() }()
	select {
	case <-reaped:
	case <-time.After(30 * time.Second):
		driver.Cmd.Process.Kill()
	}
	var events []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, b, _, _ := tryRequest("GET", base+"/events", nil, 64<<20, "Authorization", "Bearer s3cret"); bytes.Contains(b, []byte("process-exit")) {
			events = b
			break
		}
	}
	if events == nil {
		t.Error("no exit event for the driver")
	}
	_, metrics, _ := request(t, "GET", base+"/metrics", nil, 64<<20, "Authorization", "Bearer s3cret")
	for _, s := range agentSecrets {
		for what, b := range map[string][]byte{"agent --once": out, "/snapshot": snap, "/events": events, "/metrics": metrics} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s shows %q", what, s)
			}
		}
	}
}

// secPlantedHsperf (item 2): a sparse 3 GB file planted under another
// user's /tmp/hsperfdata_* directory, and one under a directory of the
// JVM's user, named after a Spark JVM's pid and newer than its own file,
// are passed over (one killed the agent: 4.6-20 GB RSS); the JVM's own
// file is read.
func secPlantedHsperf(t *testing.T, bin string) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the planted file must belong to another user and the JVM's file be readable")
	}
	executor, _ := sparkJVMs(t)
	own := fmt.Sprintf("/tmp/hsperfdata_%s/%d", currentUserName(t), executor.PID)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) { // the JVM writes it early
		if _, err := os.Stat(own); err == nil {
			break
		}
	}
	time.Sleep(50 * time.Millisecond)
	for i, owner := range []int{65534, 0} {
		dir, err := os.MkdirTemp("/tmp", fmt.Sprintf("hsperfdata_sdxplant%d_", i))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o755)
		f, err := os.Create(filepath.Join(dir, fmt.Sprint(executor.PID)))
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(3 << 30)
		f.Close()
		later := time.Now().Add(time.Hour) // newer than the JVM's own, which it keeps touching
		os.Chtimes(f.Name(), later, later)
		os.Chown(f.Name(), owner, owner)
		os.Chown(dir, owner, owner)
	}
	out, peak := agentOnce(t, bin)
	t.Logf("agent --once peak RSS with two 3 GB files planted: %d MiB", peak>>20)
	if peak > 200<<20 {
		t.Errorf("agent --once peaked at %d MiB with 3 GB files planted", peak>>20)
	}
	var snap struct {
		Processes []struct {
			PID int `json:"pid"`
			JVM *struct {
				HsperfPath string `json:"hsperfPath"`
			} `json:"jvm"`
			JVMUnavailable string `json:"jvmUnavailable"`
		} `json:"processes"`
	}
	if err := json.Unmarshal(out, &snap); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range snap.Processes {
		if p.PID == executor.PID {
			found = true
			if p.JVM == nil || !strings.HasSuffix(p.JVM.HsperfPath, own) { // seen through /proc/<pid>/root
				t.Errorf("executor: jvm %+v (%s), want its own file %s", p.JVM, p.JVMUnavailable, own)
			}
		}
	}
	if !found {
		t.Errorf("executor %d not found in %.500s", executor.PID, out)
	}
}

func currentUserName(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// secHosts (item 11): serve without a token and the agent answer only
// requests naming an allowed Host (DNS rebinding).
func secHosts(t *testing.T, bin string) {
	p := startServe(t, bin, sparktest.Path(t, "spark-events"), t.TempDir())
	waitServe(t, p, "")
	addr := sparktest.FreeAddr(t)
	agent := exec.Command(bin, "agent", "--listen", addr, "--interval", "1s", "--spark-rest-interval", "0")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, _, _, _ := tryRequest("GET", "http://"+addr+"/metrics", nil, 1<<20); code == 200 {
			break
		}
	}
	for _, c := range []struct {
		url, host string
		want      int
	}{
		{p.url + "/api/v1/applications", "evil.example.com:18080", 403},
		{p.url + "/v1/metrics", "evil.example.com", 403},
		{p.url + "/api/v1/applications", "localhost:18080", 200},
		{p.url + "/api/v1/applications", "127.0.0.1", 200},
		{"http://" + addr + "/snapshot", "evil.example.com:9877", 403},
		{"http://" + addr + "/metrics", "localhost:9877", 200},
	} {
		if code, b := get(t, c.url, "Host", c.host); code != c.want {
			t.Errorf("GET %s Host %s: %d %.100s, want %d", c.url, c.host, code, b, c.want)
		}
	}
}

// secTerminal (item 13): an application name and a class name carrying
// terminal escapes and a right-to-left override reach neither `analyze`
// nor `heap` text raw.
func secTerminal(t *testing.T, bin string) {
	const app = "local-1430917381534"
	log := bytes.Replace(sharedLog(t, app), []byte(`"App Name":"Spark shell"`),
		[]byte(`"App Name":"\u001b]0;pwned\u0007\u001b[2JSpark \u202eshell"`), 1)
	dir := logDir(t, map[string][]byte{app: log})
	dump, err := os.ReadFile(syntheticDump)
	if err != nil {
		t.Fatal(err)
	}
	const class = "org/apache/spark/CleanupTaskWeakReference"
	evil := "x\x1b]0;pwned\x07\x1b[2J\u202e"
	evil += strings.Repeat("y", len(class)-len(evil))
	dump = bytes.Replace(dump, []byte(class), []byte(evil), 1)
	writeDumpAt(t, filepath.Join(dir, "evil.hprof"), dump, binary.BigEndian.Uint64(dump[23:31]))
	for _, args := range [][]string{{"analyze", filepath.Join(dir, app)}, {"heap", filepath.Join(dir, "evil.hprof")}} {
		cmd := exec.CommandContext(context.Background(), bin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("sparkdx %s: %v\n%s", args[0], err, errb.String())
		}
		if !strings.Contains(out.String(), "pwned") {
			t.Errorf("sparkdx %s: the hostile name is not shown at all:\n%.500s", args[0], out.String())
		}
		for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
			if strings.Contains(out.String(), bad) {
				t.Errorf("sparkdx %s prints %q raw", args[0], bad)
			}
		}
	}
}

// limitFileSize sets the largest file process pid may write (RLIMIT_FSIZE;
// 0: every write to a regular file fails with EFBIG, as on a full disk).
func limitFileSize(t *testing.T, pid int, max uint64) {
	t.Helper()
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: max, Max: unix.RLIM_INFINITY}, nil); err != nil {
		t.Fatalf("prlimit %d: %v", pid, err)
	}
}

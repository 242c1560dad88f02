package agent

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// TestRealPythonLauncher: `python job.py` with pip's pyspark starts the
// driver JVM itself (pyspark's launch_gateway runs spark-submit, which
// execs java); the agent attaches that Python process to the driver as its
// launcher, with its memory and CPU.
func TestRealPythonLauncher(t *testing.T) {
	line := sparktest.SparkLines(t)[0]
	job := filepath.Join(t.TempDir(), "job.py")
	src := "import sys\nfrom pyspark.sql import SparkSession\n" +
		"s = SparkSession.builder.master('local[1]').appName('launcher').getOrCreate()\n" +
		"print('ready', s.sparkContext.applicationId, flush=True)\nsys.stdin.readline()\ns.stop()\n"
	if err := os.WriteFile(job, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(line.Python, job)
	cmd.Env = append(os.Environ(), "SPARK_HOME="+line.Home, "PYSPARK_PYTHON="+line.Python)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- rest
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(120 * time.Second):
		t.Fatal("the PySpark job did not start its driver within 120 s")
	}
	a := realAgent(t, Config{})
	s := sample(t, a)
	var driver *Process
	for i := range s.Processes {
		if p := &s.Processes[i]; p.Role == RoleDriver && p.PPID == cmd.Process.Pid {
			driver = p
		}
	}
	if driver == nil {
		t.Fatalf("no driver JVM whose parent is the Python job (pid %d)", cmd.Process.Pid)
	}
	l := driver.Launcher
	if l == nil || l.PID != cmd.Process.Pid || l.Kind != KindPython || l.Name != "job.py" || l.RSSBytes < 10<<20 {
		t.Fatalf("driver %d: got launcher %+v, want the Python job (pid %d, job.py, its RSS)", driver.PID, l, cmd.Process.Pid)
	}
	for _, c := range driver.Children {
		if c.PID == cmd.Process.Pid {
			t.Errorf("the launcher is also listed as the driver's child: %+v", c)
		}
	}
	// In /metrics under the driver's labels.
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	want := fmt.Sprintf(`pid="%d"`, driver.PID)
	found := false
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "sparkdx_process_launcher_resident_memory_bytes{") && strings.Contains(line, want) {
			found = true
		}
	}
	if !found {
		t.Errorf("/metrics has no sparkdx_process_launcher_resident_memory_bytes for the driver (%s)", want)
	}
}

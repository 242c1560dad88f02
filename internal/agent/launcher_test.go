package agent

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRealPythonLauncher: `python job.py` with pip's pyspark starts the
// driver JVM itself (pyspark's launch_gateway runs spark-submit, which
// execs java); the agent attaches that Python process to the driver as its
// launcher, with its memory and CPU.
func TestRealPythonLauncher(t *testing.T) {
	job, _ := sparktest.StartPySpark(t, sparktest.SparkLines(t)[0], "import sys\nfrom pyspark.sql import SparkSession\n"+
		"s = SparkSession.builder.master('local[1]').appName('launcher').getOrCreate()\n"+
		"print('ready', s.sparkContext.applicationId, flush=True)\nsys.stdin.readline()\ns.stop()\n")
	a := realAgent(t, Config{})
	s := sample(t, a)
	driver := driverStartedBy(t, s, job.PID)
	l := driver.Launcher
	if l == nil || l.PID != job.PID || l.Kind != KindPython || l.Name != "job.py" || l.RSSBytes < 10<<20 {
		t.Fatalf("driver %d: got launcher %+v, want the Python job (pid %d, job.py, its RSS)", driver.PID, l, job.PID)
	}
	for _, c := range driver.Children {
		if c.PID == job.PID {
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

// driverStartedBy is the driver JVM of s whose parent is the process pid
// (a Python program that started it); the test fails without one.
func driverStartedBy(t *testing.T, s *Snapshot, pid int) *Process {
	t.Helper()
	for i := range s.Processes {
		if p := &s.Processes[i]; p.Role == RoleDriver && p.PPID == pid {
			return p
		}
	}
	t.Fatalf("no driver JVM whose parent is the Python job (pid %d)", pid)
	return nil
}

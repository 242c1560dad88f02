package sparktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// HistoryServer is Spark's own History Server of a SparkLine, serving one
// event-log directory on 127.0.0.1.
type HistoryServer struct {
	URL  string // http://127.0.0.1:port
	PID  int    // the History Server's JVM (spark-class execs java)
	log  string
	stop func()
}

// StartHistoryServer starts the History Server of line over logDir (as
// spark.history.fs.logDirectory), configured as Spark's HistoryServerSuite
// made its golden answers, and waits until /api/v1/applications lists
// wantApps applications, as long as it makes progress. It is stopped, with its process group, when the
// test ends.
func StartHistoryServer(t testing.TB, line SparkLine, logDir string, wantApps int) *HistoryServer {
	t.Helper()
	Live(t)
	dir := t.TempDir()
	addr := FreeAddr(t)
	props := filepath.Join(dir, "history.properties")
	conf := fmt.Sprintf(`spark.history.fs.logDirectory file:%s
spark.history.ui.port %s
spark.history.fs.update.interval 1s
spark.history.fs.inProgressOptimization.enabled true
spark.eventLog.logStageExecutorMetrics true
spark.executor.processTreeMetrics.enabled true
spark.history.store.hybridStore.enabled false
spark.history.fs.cleaner.enabled false
spark.ui.retainedJobs 100000
spark.ui.retainedStages 100000
`, logDir, portOf(addr))
	if err := os.WriteFile(props, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &HistoryServer{URL: "http://" + addr, log: filepath.Join(dir, "history.log")}
	out, err := os.Create(h.log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(filepath.Join(line.Home, "bin", "spark-class"),
		"org.apache.spark.deploy.history.HistoryServer", "--properties-file", props)
	cmd.Env = append(SparkEnv(line, dir), "SPARK_DAEMON_MEMORY=1g")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.PID = cmd.Process.Pid
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	h.stop = sync.OnceFunc(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	t.Cleanup(h.stop)
	// On a loaded machine the History Server may take minutes to replay
	// many logs: it fails only when it stalls — 2 minutes with no new
	// application listed and no line logged (it logs each log it parses)
	// — or after 15 minutes in all.
	w := newStallWatch(2*time.Minute, 15*time.Minute)
	var apps []any
	for !w.stalled() {
		select {
		case <-done:
			t.Fatalf("Spark %s History Server exited\n%s", line.Version, h.Log())
		default:
		}
		apps = nil
		if err := getJSON(h.URL+"/api/v1/applications", &apps); err == nil && len(apps) >= wantApps {
			return h
		}
		w.observe(len(apps), h.log)
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("Spark %s History Server lists %d applications %s, want %d\n%s", line.Version, len(apps), w, wantApps, h.Log())
	return nil
}

// Stop stops the History Server and its process group now rather than at
// the test's end.
func (h *HistoryServer) Stop() { h.stop() }

// Log returns the tail of the History Server's output.
func (h *HistoryServer) Log() string {
	b, _ := os.ReadFile(h.log)
	if len(b) > 6000 {
		b = b[len(b)-6000:]
	}
	return string(b)
}

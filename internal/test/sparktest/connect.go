package sparktest

import (
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// ConnectServer is a running Spark Connect server: SparkConnectServer
// started through spark-submit, as sbin/start-connect-server.sh does, in
// its own process group.
type ConnectServer struct {
	URL string // sc://127.0.0.1:port, for SparkSession.builder.remote
	Log string // the server's stdout and stderr

	cmd  *exec.Cmd
	done chan struct{}
}

// connectServerClass is the class start-connect-server.sh submits.
const connectServerClass = "org.apache.spark.sql.connect.service.SparkConnectServer"

// StartConnectServer starts line's Spark Connect server on master (a
// spark:// URL or local[N]) with DefaultConf (event logs in dir/events)
// and conf on top (a value "" removes a default), its gRPC service on a free loopback port, dir
// holding Spark's conf/, logs/ and local/; it returns once the server
// accepts connections. Stop ends it the way an operator does, so that its
// event log is complete; a server still running when the test ends is
// killed with its group. A line without the spark-connect jar fails in CI
// and skips elsewhere.
func StartConnectServer(t testing.TB, line SparkLine, master, dir string, conf map[string]string) *ConnectServer {
	t.Helper()
	Live(t)
	if jars, _ := filepath.Glob(filepath.Join(line.Home, "jars", "spark-connect_*.jar")); len(jars) == 0 {
		Missing(t, "Spark "+line.Version+"'s spark-connect jar in "+filepath.Join(line.Home, "jars"))
	}
	for _, d := range []string{"logs", "local", "conf", "events"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addr := FreeAddr(t)
	all := DefaultConf(t, filepath.Join(dir, "events"))
	all["spark.connect.grpc.binding.address"] = "127.0.0.1"
	all["spark.connect.grpc.binding.port"] = portOf(addr)
	maps.Copy(all, conf)
	args := []string{"--master", master, "--class", connectServerClass, "--name", "Spark Connect server"}
	for _, k := range slices.Sorted(maps.Keys(all)) {
		if all[k] != "" {
			args = append(args, "--conf", k+"="+all[k])
		}
	}
	s := &ConnectServer{URL: "sc://" + addr, Log: filepath.Join(dir, "connect-server.log"), done: make(chan struct{})}
	f, err := os.Create(s.Log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s.cmd = exec.Command(filepath.Join(line.Home, "bin", "spark-submit"), args...)
	// The launcher sizes the Connect server's JVM as a daemon's, from
	// SPARK_DAEMON_MEMORY, not from spark.driver.memory; SparkEnv's small
	// daemons are below what a SparkContext needs.
	heap := all["spark.driver.memory"]
	if heap == "" {
		heap = "1g"
	}
	s.cmd.Env = append(SparkEnv(line, dir), "SPARK_DAEMON_MEMORY="+heap)
	s.cmd.Stdout, s.cmd.Stderr = f, f
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
		if t.Failed() {
			b, _ := os.ReadFile(s.Log)
			t.Logf("Spark Connect server output:\n%s", b)
		}
	})
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("Spark Connect server exited before listening on %s (%v)", addr, s.cmd.ProcessState)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("Spark Connect server did not listen on %s in 2m", addr)
		}
	}
}

// Stop ends the server with SIGTERM (Spark's shutdown hook stops the
// SparkContext, which ends the application and its event log) and waits
// up to a minute for it, then kills its group.
func (s *ConnectServer) Stop(t testing.TB) {
	t.Helper()
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
		t.Fatal("Spark Connect server did not stop in 1m after SIGTERM")
	}
	// Children of the group (none expected with a local master) go too.
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

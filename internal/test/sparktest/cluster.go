package sparktest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Cluster is a real Spark standalone cluster on 127.0.0.1: a Master and
// Workers, each a JVM from a SparkLine in its own process group; the
// Workers' executors (CoarseGrainedExecutorBackend) and their PySpark
// daemons are children of the Worker and die with its group.
type Cluster struct {
	Line      SparkLine
	MasterURL string // spark://127.0.0.1:port
	WebUI     string // http://127.0.0.1:port of the Master
	Dir       string // logs and work directories

	t       testing.TB
	mu      sync.Mutex
	procs   []*daemon
	workers int
	stopped bool
}

// ClusterOptions shapes a Cluster.
type ClusterOptions struct {
	Workers         int    // started at once; 0 for none (start them later with AddWorker)
	CoresPerWorker  int    // default 1
	MemoryPerWorker string // default "1g"
}

type daemon struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

// StartCluster starts a Master and opts.Workers Workers of line, waits
// until the Master lists them alive, and stops everything (process groups
// included) when the test ends.
func StartCluster(t testing.TB, line SparkLine, opts ClusterOptions) *Cluster {
	t.Helper()
	Live(t)
	if opts.CoresPerWorker == 0 {
		opts.CoresPerWorker = 1
	}
	if opts.MemoryPerWorker == "" {
		opts.MemoryPerWorker = "1g"
	}
	c := &Cluster{Line: line, Dir: t.TempDir(), t: t}
	t.Cleanup(c.stop)
	addrs := FreeAddrs(t, 2)
	port, web := addrs[0], addrs[1]
	c.MasterURL = "spark://" + port
	c.WebUI = "http://" + web
	c.start("master", nil, "org.apache.spark.deploy.master.Master",
		"--host", "127.0.0.1", "--port", portOf(port), "--webui-port", portOf(web))
	c.waitMaster(func(s masterState) bool { return s.Status == "ALIVE" }, "the Master to be ALIVE")
	for i := 0; i < opts.Workers; i++ {
		c.AddWorker(opts.CoresPerWorker, opts.MemoryPerWorker)
	}
	return c
}

// AddWorker starts one more Worker and waits until the Master lists it.
func (c *Cluster) AddWorker(cores int, memory string) {
	c.t.Helper()
	c.mu.Lock()
	c.workers++
	n := c.workers
	c.mu.Unlock()
	work := filepath.Join(c.Dir, fmt.Sprintf("worker-%d", n))
	if err := os.MkdirAll(work, 0o755); err != nil {
		c.t.Fatal(err)
	}
	// Each Worker is a host of its own (127.0.0.2, 127.0.0.3, ...): Spark
	// places a speculative copy only on another host, and per-host
	// statistics need more than one.
	host := fmt.Sprintf("127.0.0.%d", n+1)
	addrs := FreeAddrs(c.t, 2)
	c.start(fmt.Sprintf("worker-%d", n), []string{"SPARK_LOCAL_IP=" + host, "SPARK_LOCAL_HOSTNAME=" + host},
		"org.apache.spark.deploy.worker.Worker",
		"--host", host, "--port", portOf(addrs[0]), "--webui-port", portOf(addrs[1]),
		"--cores", strconv.Itoa(cores), "--memory", memory, "--work-dir", work, c.MasterURL)
	c.waitMaster(func(s masterState) bool { return s.alive() >= n }, fmt.Sprintf("%d alive Workers", n))
}

// Env is the environment every process of the cluster (and a driver
// submitted to it) runs with.
func (c *Cluster) Env() []string {
	return SparkEnv(c.Line, c.Dir)
}

// SparkEnv is the environment for Spark processes of line: Spark's home,
// the virtualenv's Python for drivers and PySpark workers, loopback only,
// small daemons, logs under dir.
func SparkEnv(line SparkLine, dir string) []string {
	env := os.Environ()
	return append(env,
		"SPARK_HOME="+line.Home,
		"PYSPARK_PYTHON="+line.Python,
		"PYSPARK_DRIVER_PYTHON="+line.Python,
		"SPARK_LOCAL_IP=127.0.0.1",
		"SPARK_LOCAL_HOSTNAME=127.0.0.1",
		"SPARK_LOG_DIR="+filepath.Join(dir, "logs"),
		"SPARK_LOCAL_DIRS="+filepath.Join(dir, "local"),
		"SPARK_CONF_DIR="+filepath.Join(dir, "conf"),
		"SPARK_DAEMON_MEMORY=256m",
		"SPARK_NO_DAEMONIZE=1",
	)
}

func (c *Cluster) start(name string, env []string, class string, args ...string) {
	c.t.Helper()
	for _, d := range []string{"logs", "local", "conf"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o755); err != nil {
			c.t.Fatal(err)
		}
	}
	log := filepath.Join(c.Dir, name+".log")
	f, err := os.Create(log)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(filepath.Join(c.Line.Home, "bin", "spark-class"), append([]string{class}, args...)...)
	cmd.Env = append(c.Env(), env...) // later entries win
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start %s: %v", name, err)
	}
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{}), log: log}
	go func() { cmd.Wait(); close(d.done) }()
	c.mu.Lock()
	c.procs = append(c.procs, d)
	c.mu.Unlock()
}

// KillWorker kills Worker n (1-based) and its executors with SIGKILL, as
// a lost node.
func (c *Cluster) KillWorker(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.procs {
		if d.name == fmt.Sprintf("worker-%d", n) {
			killGroup(d, syscall.SIGKILL)
		}
	}
}

// ExecutorPIDs returns the pids of the running executor JVMs
// (CoarseGrainedExecutorBackend) of this cluster.
func (c *Cluster) ExecutorPIDs() []int {
	return pidsWith("CoarseGrainedExecutorBackend", c.Dir)
}

// pidsWith returns the pids of the processes whose command line holds
// every one of words.
func pidsWith(words ...string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(string(cmdline), w) }) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Logs returns the tail of every daemon's output, for a failing test.
func (c *Cluster) Logs() string {
	var b strings.Builder
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.procs {
		out, _ := os.ReadFile(d.log)
		if len(out) > 4000 {
			out = out[len(out)-4000:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", d.name, out)
	}
	return b.String()
}

// Stop stops the cluster before the test ends (it stops by itself then):
// a test that is done with it frees the cores for the next.
func (c *Cluster) Stop() { c.stop() }

func (c *Cluster) stop() {
	c.mu.Lock()
	procs := c.procs
	if c.stopped {
		procs = nil
	}
	c.stopped = true
	c.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		killGroup(procs[i], syscall.SIGTERM)
	}
	for i := len(procs) - 1; i >= 0; i-- {
		select {
		case <-procs[i].done:
		case <-time.After(10 * time.Second):
		}
		killGroup(procs[i], syscall.SIGKILL)
	}
}

func killGroup(d *daemon, sig syscall.Signal) {
	if d.cmd.Process != nil {
		_ = syscall.Kill(-d.cmd.Process.Pid, sig)
	}
}

type masterState struct {
	Status  string `json:"status"`
	Workers []struct {
		State string `json:"state"`
	} `json:"workers"`
}

func (s masterState) alive() int {
	n := 0
	for _, w := range s.Workers {
		if w.State == "ALIVE" {
			n++
		}
	}
	return n
}

func (c *Cluster) waitMaster(ok func(masterState) bool, what string) {
	c.t.Helper()
	// A JVM is slow to start on a loaded machine: the wait fails when the
	// cluster stalls (90 s with no line logged by any of its daemons) or
	// after 10 minutes in all, not after a fixed time.
	w := newStallWatch(90*time.Second, 10*time.Minute)
	var last error
	for !w.stalled() {
		var s masterState
		last = getJSON(c.WebUI+"/json/", &s)
		if last == nil && ok(s) {
			return
		}
		w.observe(0, c.logFiles()...)
		time.Sleep(200 * time.Millisecond)
	}
	c.t.Fatalf("Spark %s: waited for %s %s (last: %v)\n%s", c.Line.Version, what, w, last, c.Logs())
}

// logFiles are the daemons' log files.
func (c *Cluster) logFiles() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, d := range c.procs {
		out = append(out, d.log)
	}
	return out
}

func getJSON(url string, v any) error {
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func portOf(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return p
}

// Submission is a spark-submit of a PySpark program.
type Submission struct {
	Program string            // the .py file
	Args    []string          // the program's arguments
	Conf    map[string]string // --conf key=value, on top of the defaults below
	// EventLogDir receives the event log (spark.eventLog.dir); required.
	EventLogDir string
	// Timeout bounds the time the driver prints nothing (its log shows
	// each task that ends), default 5 minutes; the whole run is bounded
	// by 3 times Timeout. A run that ends within Timeout is never cut; a
	// slow one on a loaded machine goes on while it progresses.
	Timeout time.Duration
}

// Submitted is what a finished spark-submit left behind.
type Submitted struct {
	Output   string // the driver's stdout and stderr
	ExitCode int
}

// Submit runs spark-submit for s against the cluster (or "local[N]" when
// master is given instead of a cluster: see SubmitTo) and waits for it.
// Every port of the driver is chosen free, its UI included.
func (c *Cluster) Submit(ctx context.Context, s Submission) (Submitted, error) {
	return SubmitTo(ctx, c.Line, c.MasterURL, c.Dir, s)
}

// Held is a submitted program waiting at its ready point (see Hold).
type Held struct {
	t        testing.TB
	done     string
	finished chan Submitted
}

// Hold submits s in the background with two arguments put first — a ready
// file and a done file — and waits (up to 4 minutes) until the program has
// written its facts, a JSON object, to the ready file (decoded into facts);
// the program then keeps its state (a cache, a heap) until the done file
// exists, which Release or the end of the test writes. A program that
// ends first fails the test with its output and the cluster's logs.
func (c *Cluster) Hold(t testing.TB, s Submission, facts any) *Held {
	t.Helper()
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	h := &Held{t: t, done: filepath.Join(dir, "done"), finished: make(chan Submitted, 1)}
	s.Args = append([]string{ready, h.done}, s.Args...)
	go func() {
		res, err := c.Submit(context.Background(), s)
		if err != nil {
			res.Output += "\n" + err.Error()
		}
		h.finished <- res
	}()
	t.Cleanup(func() { _ = os.WriteFile(h.done, nil, 0o644) })
	for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(300 * time.Millisecond) {
		if b, err := os.ReadFile(ready); err == nil {
			if err := json.Unmarshal(b, facts); err != nil {
				t.Fatalf("%s wrote %q: %v", s.Program, b, err)
			}
			return h
		}
		select {
		case res := <-h.finished:
			t.Fatalf("%s ended before its ready point (exit %d):\n%s\n%s", s.Program, res.ExitCode, res.Output, c.Logs())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never reached its ready point:\n%s", s.Program, c.Logs())
		}
	}
}

// Release lets the held program end and waits for it; a non-zero exit
// fails the test.
func (h *Held) Release() Submitted {
	h.t.Helper()
	if err := os.WriteFile(h.done, nil, 0o644); err != nil {
		h.t.Fatal(err)
	}
	res := <-h.finished
	if res.ExitCode != 0 {
		h.t.Fatalf("exit %d:\n%s", res.ExitCode, res.Output)
	}
	return res
}

// DefaultConf is the configuration every submission starts from: event
// logging on, executor metrics on, every port free and on loopback.
func DefaultConf(t testing.TB, eventLogDir string) map[string]string {
	return map[string]string{
		"spark.eventLog.enabled":                    "true",
		"spark.eventLog.dir":                        eventLogDir,
		"spark.eventLog.rolling.enabled":            "false",
		"spark.eventLog.compress":                   "false",
		"spark.eventLog.logStageExecutorMetrics":    "true",
		"spark.executor.processTreeMetrics.enabled": "true",
		"spark.driver.host":                         "127.0.0.1",
		"spark.driver.bindAddress":                  "127.0.0.1",
		"spark.driver.port":                         portOf(FreeAddr(t)),
		"spark.blockManager.port":                   portOf(FreeAddr(t)),
		"spark.driver.blockManager.port":            portOf(FreeAddr(t)),
		"spark.ui.port":                             portOf(FreeAddr(t)),
		"spark.port.maxRetries":                     "32",
		"spark.driver.memory":                       "512m",
		"spark.executor.memory":                     "512m",
		"spark.sql.shuffle.partitions":              "4",
		"spark.ui.showConsoleProgress":              "false",
	}
}

// SubmitTo runs spark-submit of line with master (a spark:// URL or
// local[N]), dir holding Spark's conf/ and logs/. s.Conf overrides
// DefaultConf; a value "" removes a default.
func SubmitTo(ctx context.Context, line SparkLine, master, dir string, s Submission) (Submitted, error) {
	if s.Timeout == 0 {
		s.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := &progressBuffer{}
	w := newStallWatch(s.Timeout, 3*s.Timeout)
	go func() {
		for t := time.NewTicker(time.Second); ; {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
				w.observe(out.size())
				if w.stalled() {
					cancel(fmt.Errorf("stalled: no output for %s or %s in all; %s", s.Timeout, 3*s.Timeout, w))
				}
			}
		}
	}()
	for _, d := range []string{"logs", "local", "conf"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return Submitted{}, err
		}
	}
	args := []string{"--master", master}
	for _, k := range slices.Sorted(maps.Keys(s.Conf)) {
		if s.Conf[k] != "" {
			args = append(args, "--conf", k+"="+s.Conf[k])
		}
	}
	args = append(args, s.Program)
	args = append(args, s.Args...)
	cmd := exec.CommandContext(ctx, filepath.Join(line.Home, "bin", "spark-submit"), args...)
	cmd.Env = SparkEnv(line, dir)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err := cmd.Run()
	// The driver JVM is a child of spark-submit's group; make sure none is left.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := Submitted{Output: out.String(), ExitCode: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		return res, fmt.Errorf("spark-submit %s: %w", filepath.Base(s.Program), context.Cause(ctx))
	}
	if err != nil {
		if _, ok := err.(*exec.ExitError); ok {
			return res, nil
		}
		return res, fmt.Errorf("spark-submit %s: %w", filepath.Base(s.Program), err)
	}
	return res, nil
}

package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/export/prom"
	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// TestQueriesAgainstPrometheus runs a real Prometheus scraping two
// targets: the prom collector over the shared Spark logs (served the way
// sparkdx serve mounts it) and a real `sparkdx agent` watching Spark-named
// JVMs (a driver, and an executor with pyspark workers in a memory
// cgroup). Every dashboard query, every variable's selector and every
// alert expression must then parse and return data.
func TestQueriesAgainstPrometheus(t *testing.T) {
	promBin := sparktest.Program(t, "prometheus")
	metrics := serveCollector(t)
	agent := startAgent(t)
	p := startPrometheus(t, promBin, metrics, agent)
	p.waitForData(t, `count(jvm_class_current{role="driver"})`, `count(jvm_memory_used_bytes{role="executor",type="non_heap"})`, `count(sparkdx_process_tree_resident_memory_bytes{kind="python"})`,
		`count(sparkdx_process_cgroup_memory_limit_bytes{role="executor"})`, `count(spark_app_info)`)
	// Two more scrapes of everything so rate() and deriv() have points.
	time.Sleep(3 * time.Second)

	var qs []query
	qs = append(qs, dashboardQueries(t)...)
	for _, q := range ruleQueries(t) {
		qs = append(qs, query{q.where, withBool(q.expr)})
	}
	for _, q := range qs {
		t.Run(q.where, func(t *testing.T) {
			n, err := p.query(substitute(q.expr))
			if err != nil {
				t.Fatalf("%s: %v", q.expr, err)
			}
			if n == 0 {
				t.Errorf("%s: no data", q.expr)
			}
		})
	}
}

// serveCollector serves prom.Collector over analyses of shared Spark logs.
func serveCollector(t *testing.T) string {
	t.Helper()
	src := &logSource{health: prom.Health{IngestLag: 2 * time.Second, QueueDepth: 1, Logs: 5}}
	for _, p := range [][]string{{"spark-events", "local-1430917381534"}, {"spark-events", "application_1553914137147_0018"},
		{"spark-events", "application_1628109047826_1317105"}, {"spark-events", "app-20161115172038-0000"},
		{"big", "application_1701368813061_0008.zstd"}} {
		logs, err := eventlog.Open(context.Background(), sparktest.Path(t, p...), eventlog.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := eventlog.ReplayLog(context.Background(), logs[0], eventlog.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := analyze.Analyze(a)
		src.apps = append(src.apps, prom.NewApp(a, r, diagnose.Run(&diagnose.Pass{Attempt: a, Result: r}, diagnose.All)))
	}
	c, err := prom.NewCollector(src, prom.Config{Window: 100 * 365 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

type logSource struct {
	apps   []prom.App
	health prom.Health
}

func (s *logSource) Apps() []prom.App    { return s.apps }
func (s *logSource) Health() prom.Health { return s.health }

// startAgent builds sparkdx, starts the Spark-named test JVMs of the agent
// package and `sparkdx agent` sampling every second.
func startAgent(t *testing.T) string {
	t.Helper()
	java, javac := sparktest.Program(t, "java"), sparktest.Program(t, "javac")
	sparktest.Program(t, "python3")
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "internal", "agent", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(dir, "classes")
	if err := sparktest.CompileJava(javac, classes, filepath.Join(src, "java")); err != nil {
		t.Fatal(err)
	}
	const app = "app-20260101000000-0077"
	cg := memoryCgroup(t, 1<<30)
	exe := startJVM(t, []string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cg, java, "-Xmx64m", "-XX:+UseSerialGC",
		"-Dsdx.python=" + filepath.Join(src, "python"), "-cp", classes, "org.apache.spark.executor.CoarseGrainedExecutorBackend",
		"--driver-url", "spark://CoarseGrainedScheduler@127.0.0.1:7078", "--executor-id", "1", "--hostname", "127.0.0.1",
		"--cores", "2", "--app-id", app, "--resourceProfileId", "0"})
	// hsperfdata's metaspace counters appear at the first collection.
	if _, err := io.WriteString(exe, "gc\n"); err != nil {
		t.Fatal(err)
	}
	startJVM(t, []string{java, "-Xmx64m", "-Dspark.app.id=" + app, "-Dsdx.classloop=true", "-cp", classes,
		"org.apache.spark.deploy.SparkSubmit", "--master", "spark://127.0.0.1:7077", "--class", "org.example.Job", "job.jar"})

	bin := filepath.Join(dir, "sparkdx")
	build := exec.Command("go", "build", "-o", bin, "../cmd/sparkdx")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr := sparktest.FreeAddr(t)
	cmd := exec.Command(bin, "agent", "--listen", addr, "--interval", "1s", "--host", "e2e-node")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("agent stderr:\n%s", stderr.String())
		}
	})
	return addr
}

// startJVM starts a test JVM and waits for its "ready"; its stdin, which
// takes Load's commands, stays open until the test ends (closing it stops
// the JVM).
func startJVM(t *testing.T, argv []string) io.Writer {
	t.Helper()
	j := sparktest.StartJVM(t, argv)
	j.Expect(t, "ready")
	go func() {
		for j.Lines.Scan() { // keep its stdout drained
		}
	}()
	return j.Stdin
}

type promServer struct {
	url string
}

func startPrometheus(t *testing.T, bin string, targets ...string) *promServer {
	t.Helper()
	dir := t.TempDir()
	conf := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n  - job_name: sparkdx\n    static_configs:\n      - targets: [%s]\n",
		strings.Join(quoteAll(targets), ", "))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := sparktest.FreeAddr(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", logs.String())
		}
	})
	return &promServer{url: "http://" + addr}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// query runs an instant query and returns how many series or samples it
// gave; an error when Prometheus rejects it.
func (p *promServer) query(expr string) (int, error) {
	resp, err := http.PostForm(p.url+"/api/v1/query", url.Values{"query": {expr}})
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Status    string `json:"status"`
		Error     string `json:"error"`
		ErrorType string `json:"errorType"`
		Data      struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	if body.Status != "success" {
		return 0, fmt.Errorf("%s: %s", body.ErrorType, body.Error)
	}
	if body.Data.ResultType == "scalar" || body.Data.ResultType == "string" {
		return 1, nil
	}
	var series []json.RawMessage
	if err := json.Unmarshal(body.Data.Result, &series); err != nil {
		return 0, err
	}
	return len(series), nil
}

// waitForData waits until every expression returns data (at most 90 s).
func (p *promServer) waitForData(t *testing.T, exprs ...string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for _, e := range exprs {
		for {
			n, err := p.query(e)
			if err == nil && n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no data for %s after 90s (last error %v)", e, err)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
}

package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestQueriesAgainstPrometheus runs a real Prometheus scraping two
// targets: a real `sparkdx serve` over shared Spark logs and a real
// `sparkdx agent` watching Spark-named JVMs (a driver, and an executor
// with pyspark workers in a memory cgroup). Every dashboard query, every
// variable's selector and every alert expression must then parse and
// return data — but the panels over a real Spark driver's series
// (fromSpark), which TestSparkEndpointsAgainstPrometheus runs.
func TestQueriesAgainstPrometheus(t *testing.T) {
	promBin := sparktest.Program(t, "prometheus")
	bin := buildSparkdx(t)
	metrics := startServe(t, bin)
	agent := startAgent(t, bin)
	p := startPrometheus(t, promBin, metrics, agent)
	p.waitForData(t, `count(jvm_class_current{role="driver"})`, `count(jvm_memory_used_bytes{role="executor",type="non_heap"})`, `count(sparkdx_process_tree_resident_memory_bytes{kind="python"})`,
		`count(sparkdx_process_cgroup_memory_limit_bytes{role="executor"})`, `count(spark_app_info)`)
	// Every ingested app, 2015's too, is inside serve's metrics window.
	if n, err := p.query(fmt.Sprintf(`count by (app_id) (spark_app_info{instance=%q})`, metrics)); err != nil || n != len(e2eLogs)+len(e2eScenarioLogs)+1 {
		t.Errorf("apps in serve's /metrics: got %d (error %v), want %d", n, err, len(e2eLogs)+len(e2eScenarioLogs)+1)
	}
	// The running app's phase, executors and context, the 2021 YARN
	// log's dynamic allocation bounds (spark.dynamicAllocation.maxExecutors
	// 900) and the idle executors it released.
	p.waitForData(t, fmt.Sprintf(`spark_app_info{app_id=%q,%s}`, runningApp, runContext.labels),
		fmt.Sprintf(`spark_app_phase{app_id=%q,phase="compute"} == 1`, runningApp),
		fmt.Sprintf(`spark_executors_alive{app_id=%q} == 1 and spark_executors_needed{app_id=%q} == 1`, runningApp, runningApp),
		`spark_dynamic_allocation_executors{app_id="application_1628109047826_1317105",bound="max"} == 900`,
		`spark_executors_removed{app_id="application_1628109047826_1317105",cause="idle"} == 6`)
	// Two more scrapes of everything so rate() and deriv() have points.
	time.Sleep(3 * time.Second)

	var qs []query
	for _, q := range dashboardQueries(t) {
		if !fromSpark(q.expr) {
			qs = append(qs, q)
		}
	}
	for _, q := range ruleQueries(t) {
		if !fromSpark(q.expr) {
			qs = append(qs, query{q.where, withBool(q.expr)})
		}
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

// e2eLogs are the shared Spark logs serve ingests: finished apps of 2015
// to 2021 (local, standalone, YARN) and a large zstd YARN log of 2023.
var e2eLogs = [][]string{{"spark-events", "local-1430917381534"}, {"spark-events", "application_1553914137147_0018"},
	{"spark-events", "application_1628109047826_1317105"}, {"spark-events", "app-20161115172038-0000"},
	{"big", "application_1701368813061_0008.zstd"}}

// e2eScenarioLogs are logs real Spark wrote for the repository's scenarios
// (testdata/scenarios): a Structured Streaming query, for the streaming
// series; and four runs of one job (config-change, both lines, good and
// bad configuration), the last of which regressed, for
// spark_job_regression_ratio.
var e2eScenarioLogs = []string{"streaming/spark-4.3.0/app-20261124161534-0000.zstd",
	"config-change-after/spark-3.5.9/app-20261127183519-0000.zstd", "config-change-before/spark-3.5.9/app-20261127183750-0001.zstd",
	"config-change-after/spark-4.3.0/app-20261127184229-0000.zstd", "config-change-before/spark-4.3.0/app-20261127184534-0001.zstd"}

// runningApp is an application whose log is still being written: it
// started ten minutes ago and runs a job and a stage submitted five
// minutes ago, so the series of running work (spark_job_running_seconds)
// exist for the alerts over them. An Airflow task started it: its Spark
// properties carry the keys Airflow's OpenLineage provider injects and a
// W3C traceparent (runContext), for the orchestrator and trace labels.
// Spark's event names and keys.
const runningApp = "app-20990101000000-0001"

// runContext are the running app's orchestrator and trace properties, and
// the spark_app_info labels serve must derive from them.
var runContext = struct {
	props  map[string]string
	labels string
}{map[string]string{"spark.openlineage.rootParentJobNamespace": "airflow", "spark.openlineage.rootParentJobName": "etl_nightly",
	"spark.openlineage.rootParentRunId": "0193a8c2-7d1e-7f00-8000-000000000001", "spark.openlineage.parentJobName": "etl_nightly.load",
	"spark.otel.traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	`run_source="openlineage-root",run_name="airflow/etl_nightly",run_id="0193a8c2-7d1e-7f00-8000-000000000001",run_task="etl_nightly.load",trace_id="4bf92f3577b34da6a3ce929d0e0e4736"`}

func writeRunningLog(t *testing.T, path string) {
	t.Helper()
	now := time.Now().UnixMilli()
	start, submit := now-10*60_000, now-5*60_000
	props, err := json.Marshal(runContext.props)
	if err != nil {
		t.Fatal(err)
	}
	stage := fmt.Sprintf(`{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"count at job.py:3","Number of Tasks":4,"RDD Info":[],"Parent IDs":[],"Details":"","Submission Time":%d,"Accumulables":[],"Resource Profile Id":0}`, submit)
	lines := []string{
		`{"Event":"SparkListenerLogStart","Spark Version":"3.5.9"}`,
		fmt.Sprintf(`{"Event":"SparkListenerApplicationStart","App Name":"running","App ID":%q,"Timestamp":%d,"User":"e2e"}`, runningApp, start),
		fmt.Sprintf(`{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{},"Spark Properties":%s,"Hadoop Properties":{},"System Properties":{},"Classpath Entries":{}}`, props),
		fmt.Sprintf(`{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":"1","Executor Info":{"Host":"n1","Total Cores":4,"Log Urls":{},"Attributes":{},"Resources":{},"Resource Profile Id":0}}`, start+20_000),
		fmt.Sprintf(`{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[0],"Properties":{}}`, submit, stage),
		fmt.Sprintf(`{"Event":"SparkListenerStageSubmitted","Stage Info":%s,"Properties":{}}`, stage),
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// metricsWindow keeps finished apps in serve's /metrics: the collector
// drops a finished app whose end time is older than now minus the window,
// and the oldest log ended in 2015.
const metricsWindow = 100 * 365 * 24 * time.Hour

// buildSparkdx is the binary under test (sparktest.Binary: built once per
// make test and shared).
func buildSparkdx(t *testing.T) string {
	t.Helper()
	return sparktest.Binary(t)
}

// startServe copies e2eLogs and e2eScenarioLogs into a temp directory, runs `sparkdx serve`
// on it and waits until every log is ingested; it returns serve's address.
func startServe(t *testing.T, bin string) string {
	t.Helper()
	logs := t.TempDir()
	paths := make([]string, 0, len(e2eLogs)+len(e2eScenarioLogs))
	for _, p := range e2eLogs {
		paths = append(paths, sparktest.Path(t, p...))
	}
	for _, p := range e2eScenarioLogs {
		paths = append(paths, filepath.Join("..", "testdata", "scenarios", p))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(logs, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeRunningLog(t, filepath.Join(logs, runningApp+".inprogress"))
	addr := sparktest.FreeAddr(t)
	cmd := exec.Command(bin, "serve", "--event-logs", logs, "--data", t.TempDir(), "--listen", addr,
		"--poll", "200ms", "--metrics-window", metricsWindow.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve output:\n%s", out.String())
		}
	})
	waitIngested(t, "http://"+addr, len(paths))
	return addr
}

// waitIngested waits (at most 120 s) for serve's status to show a finished
// scan, nothing queued or in flight, and want logs done.
func waitIngested(t *testing.T, url string, want int) {
	t.Helper()
	var last serveStatus
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get(url + "/api/sparkdx/v1/status")
		if err != nil {
			continue
		}
		err = json.NewDecoder(resp.Body).Decode(&last)
		resp.Body.Close()
		if err == nil && resp.StatusCode == http.StatusOK && last.Scanned && last.QueueDepth == 0 && last.InFlight == 0 && last.Done >= want {
			return
		}
	}
	t.Fatalf("serve not done with %d logs after 120s; last status %+v", want, last)
}

// serveStatus is the part of /api/sparkdx/v1/status the test waits on.
type serveStatus struct {
	Scanned    bool `json:"scanned"`
	QueueDepth int  `json:"queueDepth"`
	InFlight   int  `json:"inFlight"`
	Done       int  `json:"done"`
}

// startAgent starts the Spark-named test JVMs of the agent
// package and `sparkdx agent` sampling every second.
func startAgent(t *testing.T, bin string) string {
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

	return runAgent(t, bin, "--host", "e2e-node")
}

// runAgent runs `sparkdx agent` sampling every second with flags, listening
// on a free loopback address it returns; its stderr is logged when the
// test fails.
func runAgent(t *testing.T, bin string, flags ...string) string {
	t.Helper()
	addr := sparktest.FreeAddr(t)
	cmd := exec.Command(bin, append([]string{"agent", "--listen", addr, "--interval", "1s"}, flags...)...)
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
	return startPrometheusScraping(t, bin, fmt.Sprintf("  - job_name: sparkdx\n    static_configs:\n      - targets: [%s]\n",
		strings.Join(quoteAll(targets), ", ")))
}

// startPrometheusScraping runs a real Prometheus with these scrape configs
// (YAML list items), every second.
func startPrometheusScraping(t *testing.T, bin, scrapeConfigs string) *promServer {
	t.Helper()
	dir := t.TempDir()
	conf := "global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n" + scrapeConfigs
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

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/sinks"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// sinkConf is the whole of what a Spark application needs to send its
// JVM and executor metrics to serve: spark.metrics.conf.* properties
// (docs/spark-sinks.md), here with a 1 s period.
func sinkConf(name, class, host, port string) map[string]string {
	p := "spark.metrics.conf.*.sink." + name + "."
	return map[string]string{p + "class": "org.apache.spark.metrics.sink." + class, p + "host": host, p + "port": port,
		p + "period": "1", p + "unit": "seconds"}
}

// serveSparkSinks (TestStandaloneCluster's ServeSparkSinks): a real Spark
// 4.3 application on c, a standalone cluster, configured only with
// spark.metrics.conf.* properties (no agent, no jar), sends its driver's
// and executor's JvmSource and ExecutorMetrics through GraphiteSink and
// StatsdSink to `sparkdx serve --graphite-listen --statsd-listen`; while
// one of its tasks holds a sort's pages, serve's /metrics shows executor
// 0's heap pools and its current execution memory above zero, and its
// samples the same series. With -update it also records the lines Spark
// sent (a second GraphiteSink and StatsdSink pointed at the test) as
// internal/sinks' fixture.
//
// SPARKDX_SINKS_SPARK=3.5.9 runs it on that line instead (CI runs 4.3.0
// only; internal/sinks checks both lines' recorded fixtures).
func serveSparkSinks(t *testing.T, bin string, c *sparktest.Cluster) {
	line := c.Line
	start := time.Now()
	logs := t.TempDir()
	graphite, statsd := sparktest.FreeAddr(t), freeUDP(t)
	serve := startServe(t, bin, logs, t.TempDir(), "--graphite-listen", graphite, "--statsd-listen", statsd)

	conf := sparktest.DefaultConf(t, logs)
	for k, v := range sinkConf("graphite", "GraphiteSink", "127.0.0.1", portOf(graphite)) {
		conf[k] = v
	}
	for k, v := range sinkConf("statsd", "StatsdSink", "127.0.0.1", portOf(statsd)) {
		conf[k] = v
	}
	conf["spark.metrics.conf.*.source.jvm.class"] = "org.apache.spark.metrics.source.JvmSource"
	// ExecutorMetrics' current values are polled at each heartbeat (10 s)
	// unless polled on their own.
	conf["spark.executor.metrics.pollingInterval"] = "1s"
	conf["spark.sql.shuffle.partitions"] = "1" // one sort task, no sampling job for its range partitioning
	conf["spark.cores.max"] = "1"              // an executor of one core, of the shared Worker's two
	var rec *recorder
	if *update {
		rec = startRecorder(t)
		for k, v := range sinkConf("record", "GraphiteSink", "127.0.0.1", portOf(rec.graphite.Addr().String())) {
			conf[k] = v
		}
		for k, v := range sinkConf("recordstatsd", "StatsdSink", "127.0.0.1", portOf(rec.statsd.LocalAddr().String())) {
			conf[k] = v
		}
	}
	var facts struct{ AppID string }
	held := c.Hold(t, sparktest.Submission{Program: filepath.Join("testdata", "sinks_workload.py"), Conf: conf,
		EventLogDir: logs, Timeout: 5 * time.Minute}, &facts)
	holding := time.Now()

	// The pools are present (one may be empty at a given instant); the
	// heap and the sort's execution memory are in use.
	series := []metricWant{
		{fmt.Sprintf(`jvm_memory_used_bytes\{app_id=%q,executor_id="0",pool="G1 Old Gen",role="executor",source="spark_sink",type="heap"\}`, facts.AppID), false},
		{fmt.Sprintf(`jvm_memory_used_bytes\{app_id=%q,executor_id="0",pool="CodeHeap 'non-profiled nmethods'",role="executor",source="spark_sink",type="non_heap"\}`, facts.AppID), true},
		{fmt.Sprintf(`jvm_buffer_memory_used_bytes\{app_id=%q,executor_id="0",pool="direct",role="executor",source="spark_sink"\}`, facts.AppID), false},
		{fmt.Sprintf(`spark_executor_memory_bytes\{app_id=%q,executor_id="0",kind="JVMHeapMemory",role="executor",source="spark_sink"\}`, facts.AppID), true},
		{fmt.Sprintf(`spark_executor_memory_bytes\{app_id=%q,executor_id="0",kind="OnHeapExecutionMemory",role="executor",source="spark_sink"\}`, facts.AppID), true},
		{fmt.Sprintf(`jvm_memory_used_bytes\{app_id=%q,executor_id="driver",pool="Metaspace",role="driver",source="spark_sink",type="non_heap"\}`, facts.AppID), true},
		{`sparkdx_serve_sink_lines_total\{outcome="mapped",sink="graphite"\}`, true},
		{`sparkdx_serve_sink_lines_total\{outcome="mapped",sink="statsd"\}`, true},
	}
	waitMetrics(t, serve, series, time.Minute)
	// Samples as the agent's are named: the heap pools summed, the sort's
	// execution memory in use; GC time present (it may still be 0).
	samples := waitSamples(t, serve.url, facts.AppID, map[string]bool{"jvm.memory.used{heap}": true, "jvm.memory.used{non_heap}": true,
		"spark.executor.memory.usage{OnHeapExecutionMemory}": true, "jvm.gc.duration": false}, 30*time.Second)
	t.Logf("Spark %s: the task held the sort %.1f s after the test began; executor 0's series in /metrics and samples %.1f s after that; samples: %v",
		line.Version, holding.Sub(start).Seconds(), time.Since(holding).Seconds(), samples)
	if rec != nil {
		rec.write(t, facts.AppID, filepath.Join("..", "..", "internal", "sinks", "testdata", "spark-"+line.Version))
	}
	held.Release()
	checkStageMemory(t, serve.url, facts.AppID)
	if t.Failed() {
		t.Logf("serve:\n%s", serve.logs)
	}
}

// checkStageMemory: once the held stage completed (Spark's event log
// flushes a stage's submission only with a later event, so a running
// stage may not be in the log yet), some stage's page shows executor 0's
// memory while that stage ran, from the sinks' samples: its heap and its
// execution memory above zero (the sort's pages).
func checkStageMemory(t *testing.T, url, app string) {
	t.Helper()
	row := regexp.MustCompile(`#exec-0">0</a></td><td class="num">(\d+)</td><td class="num">([^<]+)</td><td class="num">[^<]*</td><td class="num">([^<]+)</td>`)
	var last string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		status, b, err := hstest.Fetch(url + "/api/v1/applications/" + app + "/stages?status=complete")
		var stages []struct{ StageID, AttemptID int }
		if err != nil || status != http.StatusOK || json.Unmarshal(b, &stages) != nil {
			last = fmt.Sprintf("stages: %d %v %.300s", status, err, b)
			continue
		}
		last = fmt.Sprintf("%d completed stages", len(stages))
		for _, st := range stages {
			status, page, err := hstest.Fetch(fmt.Sprintf("%s/apps/%s/stages/%d/%d", url, app, st.StageID, st.AttemptID))
			if err != nil || status != http.StatusOK {
				last = fmt.Sprintf("stage %d.%d's page: %d %v", st.StageID, st.AttemptID, status, err)
				continue
			}
			if m := row.FindSubmatch(page); m != nil && string(m[2]) != "0 B" && string(m[3]) != "0 B" {
				t.Logf("stage %d.%d's page: executor 0 in %s samples, heap %s, execution memory %s", st.StageID, st.AttemptID, m[1], m[2], m[3])
				return
			} else if i := strings.Index(string(page), `id="stage-memory"`); i >= 0 {
				last = fmt.Sprintf("stage %d.%d's memory table: %.1500s", st.StageID, st.AttemptID, page[i:])
			}
		}
	}
	t.Errorf("no completed stage's page has a memory row of executor 0 with heap and execution memory above 0; last: %s", last)
}

// metricWant is a series of /metrics: a regular expression of its name
// and labels, and whether its value must be above zero.
type metricWant struct {
	series   string
	positive bool
}

// waitMetrics waits until serve's /metrics has every series wanted.
func waitMetrics(t *testing.T, serve *serveProc, want []metricWant, limit time.Duration) {
	t.Helper()
	res := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		res[i] = regexp.MustCompile(`(?m)^` + w.series + ` (\S+)$`)
	}
	var body []byte
	for deadline := time.Now().Add(limit); ; time.Sleep(250 * time.Millisecond) {
		var missing []string
		if status, b, err := hstest.Fetch(serve.url + "/metrics"); err == nil && status == http.StatusOK {
			body = b
		}
		for i, re := range res {
			m := re.FindSubmatch(body)
			if m == nil {
				missing = append(missing, want[i].series+" (absent)")
			} else if v, err := strconv.ParseFloat(string(m[1]), 64); err != nil || (want[i].positive && v <= 0) {
				missing = append(missing, want[i].series+" = "+string(m[1]))
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var sinkLines []string
			for _, l := range strings.Split(string(body), "\n") {
				if strings.Contains(l, "source=\"spark_sink\"") || strings.HasPrefix(l, "sparkdx_serve_sink") {
					sinkLines = append(sinkLines, l)
				}
			}
			t.Fatalf("after %v /metrics lacks, or has at 0:\n%s\nits sink series:\n%s", limit, strings.Join(missing, "\n"), strings.Join(sinkLines, "\n"))
		}
	}
}

// waitSamples waits until serve's samples of app have executor 0's
// metrics (above zero where positive says so), and returns how many of
// each.
func waitSamples(t *testing.T, url, app string, positive map[string]bool, limit time.Duration) map[string]int {
	t.Helper()
	for deadline := time.Now().Add(limit); ; time.Sleep(250 * time.Millisecond) {
		n := map[string]int{}
		if status, b, err := hstest.Fetch(url + "/api/sparkdx/v1/apps/" + app + "/samples"); err == nil && status == http.StatusOK {
			var xs []servedSample
			if json.Unmarshal(b, &xs) == nil {
				for _, x := range xs {
					if pos, ok := positive[x.Metric]; ok && x.ExecutorID == "0" && (!pos || x.Value > 0) {
						n[x.Metric]++
					}
				}
			}
		}
		if len(n) == len(positive) {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v serve's samples of %s have executor 0's %v, want each of %v (true: above 0)", limit, app, n, positive)
		}
	}
}

func freeUDP(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().String()
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// recorder keeps what a GraphiteSink and a StatsdSink send: per process,
// its last whole Graphite report (one connection) and its last line of
// each StatsD metric.
type recorder struct {
	graphite net.Listener
	statsd   net.PacketConn
	mu       sync.Mutex
	reports  map[string][]string          // by app.executor
	datagram map[string]map[string]string // by app.executor, metric name
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{graphite: ln, statsd: pc, reports: map[string][]string{}, datagram: map[string]map[string]string{}}
	t.Cleanup(func() { ln.Close(); pc.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go r.report(conn)
		}
	}()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			l := string(buf[:n])
			p, err := sinks.ParseStatsd([]byte(l), 0)
			if err != nil {
				continue
			}
			key := p.App + "." + p.Executor
			r.mu.Lock()
			if r.datagram[key] == nil {
				r.datagram[key] = map[string]string{}
			}
			r.datagram[key][l[:strings.LastIndexByte(l, ':')]] = l
			r.mu.Unlock()
		}
	}()
	return r
}

func (r *recorder) report(conn net.Conn) {
	defer conn.Close()
	var lines []string
	key := ""
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if p, err := sinks.ParseGraphite(sc.Bytes()); err == nil && key == "" {
			key = p.App + "." + p.Executor
		}
	}
	if key != "" {
		r.mu.Lock()
		r.reports[key] = lines
		r.mu.Unlock()
	}
}

// write stores the driver's and executor 0's last reports of app in dir.
func (r *recorder) write(t *testing.T, app, dir string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var graphite, statsd []string
	for _, exec := range []string{"driver", "0"} {
		rep, lines := r.reports[app+"."+exec], r.datagram[app+"."+exec]
		if len(rep) == 0 || len(lines) == 0 {
			t.Fatalf("recorded no report of %s.%s (graphite %d lines, statsd %d)", app, exec, len(rep), len(lines))
		}
		graphite = append(graphite, rep...)
		for _, name := range slices.Sorted(maps.Keys(lines)) {
			statsd = append(statsd, lines[name])
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, ls := range map[string][]string{"graphite.txt": graphite, "statsd.txt": statsd} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded %d Graphite and %d StatsD lines of %s in %s", len(graphite), len(statsd), app, dir)
}

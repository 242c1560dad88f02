package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// sparkExecutorMemory (TestStandaloneCluster's
// SparkExecutorMemoryEverywhere): Spark's own executor memory, read by a
// real `sparkdx agent` from a real Spark 3.5 driver's REST API on c, reaches
// all three outputs as time series of the executor's application and id —
// the agent's Prometheus /metrics, OTLP pushed to `sparkdx serve` (its
// samples), and serve's Delta `samples` table with spark.memory.kind —
// first with the executor's cached DataFrame in storage memory, then with
// it unpersisted. The test logs how long each output took to show each
// change (the delay between a Spark event and its metric) with the agent
// sampling and reading the REST API every second.
func sparkExecutorMemory(t *testing.T, bin string, c *sparktest.Cluster) {
	line := c.Line
	logs, lake := t.TempDir(), t.TempDir()
	serve := startServe(t, bin, logs, t.TempDir(), "--delta", lake, "--delta-flush-interval", "200ms")

	agentAddr := sparktest.FreeAddr(t)
	agent := exec.Command(bin, "agent", "--interval", "1s", "--spark-rest-interval", "1s", "--listen", agentAddr,
		"--host", "spark-node", "--otlp-endpoint", serve.url+"/v1/metrics")
	agentLog, err := os.Create(filepath.Join(t.TempDir(), "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer agentLog.Close() // the child holds its own descriptor
	agent.Stdout, agent.Stderr = agentLog, agentLog
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		agent.Process.Kill()
		agent.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(agentLog.Name())
			t.Logf("agent:\n%s\nserve:\n%s", b, serve.logs)
		}
	})

	job, app := sparktest.StartCachingDriver(t, line, c, logs)
	cached := time.Now()

	outs := memoryOutputs{t: t, app: app, agent: "http://" + agentAddr + "/metrics", serve: serve.url, lake: lake}
	// Cached: every output has executor 0's storage memory in use, and
	// its peaks (from its heartbeats).
	delays := outs.waitAll(cached, 2*time.Minute, func(v float64) bool { return v > 1<<20 })
	used := outs.last
	outs.peaks()

	if _, err := fmt.Fprintln(job.Stdin, "unpersist"); err != nil {
		t.Fatal(err)
	}
	for job.Lines.Scan() && job.Lines.Text() != "unpersisted" {
	}
	dropped := time.Now()
	// Unpersisted: the same series fall to the few KiB a broadcast keeps.
	after := outs.waitAll(dropped, time.Minute, func(v float64) bool { return v < used/10 })
	// The cache's blocks reach the driver during count(), before the
	// program says so: its delay is a lower bound; the unpersist's is the
	// whole way from Spark to each output.
	for i, name := range outputNames {
		t.Logf("Spark %s, agent --interval 1s --spark-rest-interval 1s: %s had the cache %.1f s after the driver said it was done, the unpersist %.1f s after it returned",
			line.Version, name, delays[i].Seconds(), after[i].Seconds())
	}
}

var outputNames = [3]string{"agent /metrics", "serve samples (OTLP)", "Delta samples"}

// memoryOutputs reads executor 0's on-heap storage memory used of app
// from the three outputs.
type memoryOutputs struct {
	t                  *testing.T
	app                string
	agent, serve, lake string
	last               float64 // the agent's last value read by waitAll
}

// waitAll waits until each output's latest value of executor 0's
// on-heap storage memory used satisfies ok, and returns how long after
// since each did.
func (o *memoryOutputs) waitAll(since time.Time, limit time.Duration, ok func(float64) bool) [3]time.Duration {
	o.t.Helper()
	var got [3]time.Duration
	var seen [3]bool
	reads := [3]func() (float64, bool){o.prometheus, o.samples, o.delta}
	for deadline := time.Now().Add(limit); ; time.Sleep(200 * time.Millisecond) {
		done := true
		for i, read := range reads {
			if seen[i] {
				continue
			}
			if v, present := read(); present && ok(v) {
				seen[i], got[i] = true, time.Since(since)
				if i == 0 {
					o.last = v
				}
				continue
			}
			done = false
		}
		if done {
			return got
		}
		if time.Now().After(deadline) {
			var last [3]string
			for i, read := range reads {
				v, present := read()
				last[i] = fmt.Sprintf("%s: %v (present %v, reached %v)", outputNames[i], v, present, seen[i])
			}
			o.t.Fatalf("executor 0's storage memory of %s after %v: %v", o.app, limit, last)
		}
	}
}

// prometheus is the agent's spark_executor_storage_memory_used_bytes of
// executor 0, on heap.
func (o *memoryOutputs) prometheus() (float64, bool) {
	status, b, err := hstest.Fetch(o.agent)
	if err != nil || status != http.StatusOK {
		return 0, false
	}
	re := regexp.MustCompile(fmt.Sprintf(`(?m)^spark_executor_storage_memory_used_bytes\{app_id=%q,area="on_heap",executor_id="0",host="spark-node"\} (\S+)$`, o.app))
	m := re.FindSubmatch(b)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	return v, err == nil
}

type servedSample struct {
	AppID, ExecutorID, Metric string
	Time                      int64
	Value                     float64
}

func (o *memoryOutputs) servedSamples() []servedSample {
	var xs []servedSample
	resp, err := http.Get(o.serve + "/api/sparkdx/v1/apps/" + o.app + "/samples")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&xs) != nil {
		return nil
	}
	return xs
}

// samples is the latest sample serve keeps of executor 0's on-heap
// storage memory used, pushed by the agent over OTLP.
func (o *memoryOutputs) samples() (float64, bool) {
	var last servedSample
	for _, s := range o.servedSamples() {
		if s.AppID == o.app && s.ExecutorID == "0" && s.Metric == "spark.executor.storage_memory.used{on_heap}" && s.Time >= last.Time {
			last = s
		}
	}
	return last.Value, last.Metric != ""
}

// delta is the latest row of the samples table of executor 0's on-heap
// storage memory used.
func (o *memoryOutputs) delta() (float64, bool) {
	last, ok := o.deltaRow("spark.executor.storage_memory.used", "on_heap")
	return last.Value, ok
}

// deltaRow is the latest samples row of executor 0 for metric and kind.
func (o *memoryOutputs) deltaRow(metric, kind string) (delta.SampleRow, bool) {
	var last delta.SampleRow
	if _, err := os.Stat(filepath.Join(o.lake, delta.TableSamples, "_delta_log")); err != nil {
		return last, false
	}
	found := false
	for _, r := range readRows[delta.SampleRow](o.t, o.lake, delta.TableSamples) {
		if r.AppID == o.app && r.ExecutorID == "0" && r.Metric == metric && r.Attributes["spark.memory.kind"] == kind && !r.Time.Before(last.Time) {
			last, found = r, true
		}
	}
	return last, found
}

// peaks: executor 0's peak memory metrics (from its heartbeats) are in
// every output too.
func (o *memoryOutputs) peaks() {
	o.t.Helper()
	for _, kind := range []string{"JVMHeapMemory", "OnHeapStorageMemory", "ProcessTreeJVMRSSMemory"} {
		re := regexp.MustCompile(fmt.Sprintf(`(?m)^spark_executor_peak_memory_bytes\{app_id=%q,executor_id="0",host="spark-node",kind=%q\} (\S+)$`, o.app, kind))
		var prom, served float64
		var row delta.SampleRow
		var inRow bool
		for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			if _, b, err := hstest.Fetch(o.agent); err == nil {
				if m := re.FindSubmatch(b); m != nil {
					prom, _ = strconv.ParseFloat(string(m[1]), 64)
				}
			}
			for _, s := range o.servedSamples() {
				if s.ExecutorID == "0" && s.Metric == "spark.executor.memory.peak{"+kind+"}" {
					served = s.Value
				}
			}
			row, inRow = o.deltaRow("spark.executor.memory.peak", kind)
			if prom > 0 && served > 0 && inRow && row.Value > 0 {
				break
			}
			if time.Now().After(deadline) {
				o.t.Errorf("executor 0's peak %s: /metrics %v, serve %v, Delta %v (row %v); want each above 0", kind, prom, served, row.Value, inRow)
				break
			}
		}
	}
}

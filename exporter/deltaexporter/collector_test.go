package deltaexporter

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// buildCollector builds the distribution of deploy/otelcol with ocb, or
// returns $SPARKDX_OTELCOL when set (a binary built before). A cold build
// takes minutes (8 min wall on a busy 2-core machine, ~2 min CPU).
func buildCollector(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("SPARKDX_OTELCOL"); bin != "" {
		return bin
	}
	builder := sparktest.Program(t, "builder")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(root, "deploy", "otelcol", "builder-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	m := string(manifest)
	m = strings.Replace(m, "output_path: deploy/otelcol/_build", "output_path: "+out, 1)
	m = strings.Replace(m, "=> ../../../exporter/deltaexporter", "=> "+filepath.Join(root, "exporter", "deltaexporter"), 1)
	m = strings.Replace(m, "=> ../../../receiver/sparksinksreceiver", "=> "+filepath.Join(root, "receiver", "sparksinksreceiver"), 1)
	m = strings.Replace(m, "=> ../../..", "=> "+root, 1)
	cfg := filepath.Join(t.TempDir(), "builder-config.yaml")
	if err := os.WriteFile(cfg, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if b, err := exec.Command(builder, "--config", cfg).CombinedOutput(); err != nil {
		t.Fatalf("builder: %v\n%s", err, b)
	}
	t.Logf("collector built in %v", time.Since(start).Round(time.Second))
	return filepath.Join(out, "otelcol-sparkdx")
}

// startJVM runs a JVM whose main class and arguments look like a Spark
// executor's (the agent's test class), so the agent discovers it.
func startJVM(t *testing.T, appID string) {
	t.Helper()
	javac, java := sparktest.Program(t, "javac"), sparktest.Program(t, "java")
	classes := t.TempDir()
	src, _ := filepath.Abs("../../internal/agent/testdata/java")
	if err := sparktest.CompileJava(javac, classes, src); err != nil {
		t.Fatal(err)
	}
	sparktest.StartJVM(t, []string{java, "-Xmx64m", "-cp", classes, "org.apache.spark.executor.CoarseGrainedExecutorBackend",
		"--driver-url", "spark://CoarseGrainedScheduler@127.0.0.1:7078", "--executor-id", "1",
		"--hostname", "127.0.0.1", "--cores", "1", "--app-id", appID, "--resourceProfileId", "0"}).Expect(t, "ready")
}

// TestCollectorPipeline: sparkdx agent watches a real JVM and pushes OTLP
// to a collector built with this exporter, and a real Spark application's
// GraphiteSink lines (internal/sinks' fixture) reach its sparksinks
// receiver; the rows of both appear in samples. The distribution's own
// configuration (deploy/otelcol/config.yaml) passes the collector's
// validation.
func TestCollectorPipeline(t *testing.T) {
	sparktest.Live(t)
	otelcol := buildCollector(t)
	validateShipped(t, otelcol)
	sparkdx := sparktest.Binary(t)
	appID := fmt.Sprintf("app-20261121000000-%04d", os.Getpid()%10000)
	startJVM(t, appID)

	lake := t.TempDir()
	otlpAddr, graphiteAddr := sparktest.FreeAddr(t), sparktest.FreeAddr(t)
	cfg := filepath.Join(t.TempDir(), "otelcol.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
  sparksinks:
    graphite_endpoint: %s
processors:
  batch:
    timeout: 200ms
exporters:
  delta:
    path: %s
    flush_interval: 500ms
    maintain_interval: 1s
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    metrics:
      receivers: [otlp, sparksinks]
      processors: [batch]
      exporters: [delta]
`, otlpAddr, graphiteAddr, lake)), 0o644)
	col := exec.Command(otelcol, "--config", cfg)
	var colOut strings.Builder
	col.Stdout, col.Stderr = &colOut, &colOut
	if err := col.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("collector output:\n%s", colOut.String())
		}
	}()
	agent := exec.Command(sparkdx, "agent", "--interval", "500ms", "--listen", "", "--host", "node-e2e",
		"--otlp-endpoint", "http://"+otlpAddr)
	var agentOut strings.Builder
	agent.Stdout, agent.Stderr = &agentOut, &agentOut
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	sinkApp := sendGraphiteFixture(t, graphiteAddr)
	samples := filepath.Join(lake, delta.TableSamples)
	deadline := time.Now().Add(90 * time.Second)
	var jvmRows, rssRows int
	seen := map[string]int{}
	for time.Now().Before(deadline) && (jvmRows == 0 || rssRows == 0) {
		time.Sleep(time.Second)
		if _, err := os.Stat(filepath.Join(samples, "_delta_log", "00000000000000000001.json")); err != nil {
			continue
		}
		_, rows := readSamples(t, samples)
		jvmRows, rssRows = 0, 0
		for _, r := range rows {
			if r.AppID == appID {
				seen[r.Metric]++
			}
			// An idle test JVM may report 0 bytes in its heap pools, so the
			// value check is on the process's RSS.
			if r.AppID != appID || r.Role != "executor" || r.Host != "node-e2e" || r.ExecutorID != "1" {
				continue
			}
			if r.Metric == "jvm.memory.used" && r.Attributes["jvm.memory.pool.name"] != "" {
				jvmRows++
			}
			if r.Metric == "process.memory.usage" && r.Value > 0 {
				rssRows++
			}
		}
	}
	// The exporter compacts its small files while it runs (maintain_interval).
	optimized := func() bool {
		logs, _ := filepath.Glob(filepath.Join(samples, "_delta_log", "*.json"))
		for _, l := range logs {
			if b, err := os.ReadFile(l); err == nil && strings.Contains(string(b), `"operation":"OPTIMIZE"`) {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(20 * time.Second); !optimized(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("no OPTIMIZE commit in samples within 20 s (maintain_interval 1s)")
			break
		}
	}
	agent.Process.Signal(syscall.SIGTERM)
	agent.Wait()
	col.Process.Signal(syscall.SIGTERM)
	if err := col.Wait(); err != nil {
		t.Errorf("collector exit: %v", err)
	}
	if jvmRows == 0 || rssRows == 0 {
		t.Fatalf("no jvm.memory.used and process.memory.usage rows for %s in samples after 90 s; metrics of the app: %v\nagent:\n%s", appID, seen, agentOut.String())
	}
	tb, rows := readSamples(t, samples) // after the collector's final flush
	checkSinkRows(t, rows, sinkApp)
	t.Logf("%d rows in %d files, version %d; %d jvm.memory.used and %d process.memory.usage rows of the test JVM",
		len(rows), len(tb.Files), tb.Version, jvmRows, rssRows)

	// Other engines read the collector's table as sparkdx does.
	for _, read := range []deltaread.Reader{deltaread.DeltaRS(t, nil), deltaread.Spark(t, nil)} {
		v := read.Read(lake, []string{delta.TableSamples}, -1)[delta.TableSamples]
		if v.Version != tb.Version || v.Rows != int64(len(rows)) || v.Files != len(tb.Files) || !slices.Contains(v.Apps, appID) {
			t.Errorf("%s reads samples at version %d, %d rows in %d files, apps %v; sparkdx reads version %d, %d rows in %d files with %s",
				read.Name, v.Version, v.Rows, v.Files, v.Apps, tb.Version, len(rows), len(tb.Files), appID)
		}
	}
}

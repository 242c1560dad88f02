package deploy

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// TestSparkEndpointsAgainstPrometheus: a real Prometheus scrapes a real
// Spark driver's own endpoints on its UI port the way the chart's
// sparkPodMonitor does — the executors' metrics at
// /metrics/executors/prometheus and the driver's PrometheusServlet at
// /metrics/prometheus, with the Spark conf the chart's README gives — and
// both answer with Spark's series.
func TestSparkEndpointsAgainstPrometheus(t *testing.T) {
	promBin := sparktest.Program(t, "prometheus")
	line := sparktest.SparkLines(t)[0]
	ui := sparktest.FreeAddr(t)
	_, port, _ := strings.Cut(ui, ":")
	job := filepath.Join(t.TempDir(), "job.py")
	src := fmt.Sprintf(`import sys
from pyspark.sql import SparkSession
s = (SparkSession.builder.master("local[2]").appName("prom")
     .config("spark.ui.port", "%s")
     .config("spark.ui.prometheus.enabled", "true")
     .config("spark.metrics.conf.*.sink.prometheusServlet.class", "org.apache.spark.metrics.sink.PrometheusServlet")
     .config("spark.metrics.conf.*.sink.prometheusServlet.path", "/metrics/prometheus")
     .config("spark.metrics.appStatusSource.enabled", "true")
     .getOrCreate())
s.range(0, 100000, numPartitions=4).selectExpr("sum(id)").collect()
print("ready", s.sparkContext.applicationId, flush=True)
sys.stdin.readline()
s.stop()
`, port)
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
	var app string
	select {
	case app = <-ready:
	case <-time.After(120 * time.Second):
		t.Fatal("the Spark driver did not start within 120 s")
	}
	p := startPrometheusScraping(t, promBin, fmt.Sprintf(`  - job_name: spark-executors
    metrics_path: /metrics/executors/prometheus
    static_configs: [{targets: ["%[1]s"]}]
  - job_name: spark-driver
    metrics_path: /metrics/prometheus
    static_configs: [{targets: ["%[1]s"]}]
`, ui))
	// The executors' endpoint labels each series with the application and
	// executor; the servlet names the driver's series after the app.
	p.waitForData(t,
		fmt.Sprintf(`metrics_executor_memoryUsed_bytes{job="spark-executors",application_id=%q,executor_id="driver"}`, app),
		fmt.Sprintf(`{job="spark-driver",__name__=~"metrics_%s_driver_BlockManager_memory_maxMem_MB_Number"}`,
			strings.NewReplacer("-", "_").Replace(app)),
		`up{job=~"spark-.*"} == 1`)
}

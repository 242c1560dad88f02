package deploy

import (
	"fmt"
	"strings"
	"testing"

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
	_, app := sparktest.StartPySpark(t, line, src)
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

package deploy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestSparkEndpointsAgainstPrometheus: a real Prometheus scrapes a real
// Spark driver's own endpoints on its UI port the way the chart's
// sparkPodMonitor does — the executors' metrics at
// /metrics/executors/prometheus and the driver's PrometheusServlet at
// /metrics/prometheus, with the Spark conf the chart's README gives — and
// both answer with Spark's series. A real `sparkdx agent` beside it reads
// the driver's REST API (found from its sockets) and is scraped too; every
// dashboard panel and alert rule over these series (fromSpark) then
// returns data while the job holds a cached DataFrame.
func TestSparkEndpointsAgainstPrometheus(t *testing.T) {
	promBin := sparktest.Program(t, "prometheus")
	bin := buildSparkdx(t)
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
     .config("spark.metrics.conf.driver.source.jvm.class", "org.apache.spark.metrics.source.JvmSource")
     .config("spark.executor.processTreeMetrics.enabled", "true")
     .getOrCreate())
s.range(0, 100000, numPartitions=4).selectExpr("sum(id)").collect()
df = s.range(0, 1000000, numPartitions=4).selectExpr("id", "cast(id as string) as s").cache()
df.count()
print("ready", s.sparkContext.applicationId, flush=True)
sys.stdin.readline()
s.stop()
`, port)
	_, app := sparktest.StartPySpark(t, line, src)
	agent := startSparkRESTAgent(t, bin)
	p := startPrometheusScraping(t, promBin, fmt.Sprintf(`  - job_name: spark-executors
    metrics_path: /metrics/executors/prometheus
    static_configs: [{targets: ["%[1]s"]}]
  - job_name: spark-driver
    metrics_path: /metrics/prometheus
    static_configs: [{targets: ["%[1]s"]}]
  - job_name: sparkdx
    static_configs: [{targets: ["%[2]s"]}]
`, ui, agent))
	// The executors' endpoint labels each series with the application and
	// executor; the servlet names the driver's series after the app.
	p.waitForData(t,
		fmt.Sprintf(`metrics_executor_memoryUsed_bytes{job="spark-executors",application_id=%q,executor_id="driver"}`, app),
		fmt.Sprintf(`{job="spark-driver",__name__=~"metrics_%s_driver_BlockManager_memory_maxMem_MB_Number"}`,
			strings.NewReplacer("-", "_").Replace(app)),
		`up{job=~"spark-.*"} == 1`,
		// JvmSource: the driver's code-cache segments, what the
		// SparkDriverCodeCacheNearlyFull alert reads.
		`{job="spark-driver",__name__=~"metrics_.+_driver_jvm_pools_CodeHeap_.+_usage_(Number|Value)"} > 0`)

	// The agent's series of the same driver: the cached DataFrame is in
	// the driver's storage memory (local mode: the driver is the executor).
	p.waitForData(t, fmt.Sprintf(`spark_executor_storage_memory_used_bytes{job="sparkdx",app_id=%q,executor_id="driver",area="on_heap"} > 0`, app),
		fmt.Sprintf(`spark_executor_peak_memory_bytes{job="sparkdx",app_id=%q,kind="JVMHeapMemory"} > 0`, app))
	// Two more scrapes for rate().
	time.Sleep(3 * time.Second)
	n := 0
	qs := dashboardQueries(t)
	for _, q := range ruleQueries(t) {
		qs = append(qs, query{q.where, withBool(q.expr)})
	}
	for _, q := range qs {
		if !fromSpark(q.expr) {
			continue
		}
		n++
		t.Run(q.where, func(t *testing.T) {
			got, err := p.query(substitute(q.expr))
			if err != nil {
				t.Fatalf("%s: %v", q.expr, err)
			}
			if got == 0 {
				t.Errorf("%s: no data", q.expr)
			}
		})
	}
	if n == 0 {
		t.Error("no dashboard panel reads Spark's own series or the agent's REST ones")
	}
}

// startSparkRESTAgent runs `sparkdx agent` reading the drivers' REST APIs
// every second and returns its /metrics address.
func startSparkRESTAgent(t *testing.T, bin string) string {
	t.Helper()
	return runAgent(t, bin, "--spark-rest-interval", "1s", "--host", "spark-node")
}

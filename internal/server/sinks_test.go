package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/sinks"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
)

// TestSparkSinksIntoServe: the Graphite report a real Spark 4.3 executor
// sent (package sinks' fixture), received on serve's Graphite port, goes
// where an agent's OTLP push goes — samples named as the agent's, within
// the same bounds — and its last values are in /metrics.
func TestSparkSinksIntoServe(t *testing.T) {
	report, err := os.ReadFile(filepath.Join("..", "sinks", "testdata", "spark-4.3.0", "graphite.txt"))
	if err != nil {
		t.Fatal(err)
	}
	app := ""
	for _, l := range strings.Split(string(report), "\n") {
		if p, err := sinks.ParseGraphite([]byte(l)); err == nil && app == "" {
			app = p.App
		}
	}
	var srv *Server
	rcv, err := sinks.New(sinks.Config{GraphiteAddr: "127.0.0.1:0", Sink: func(ctx context.Context, md *metricpb.MetricsData) error {
		return srv.IngestMetrics(ctx, md)
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, t.TempDir(), []string{t.TempDir()}, func(_ *ingest.Config, sc *Config) {
		sc.Collectors = []prometheus.Collector{rcv.Collector()}
	})
	srv = ts.srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { rcv.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	conn, err := net.Dial("tcp", rcv.GraphiteAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(report); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	want := []string{"jvm.memory.used{heap}", "jvm.memory.used{old}", "jvm.gc.duration", "spark.executor.memory.usage{OnHeapExecutionMemory}"}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		xs, err := ts.st.ExecutorSamples(app, "0")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range xs {
			got = append(got, x.Metric)
		}
		if !slices.ContainsFunc(want, func(m string) bool { return !slices.Contains(got, m) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("executor 0's samples of %s: %q; want %q among them", app, got, want)
		}
	}
	_, body, err := hstest.Fetch(ts.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, series := range []string{
		`jvm_memory_used_bytes{app_id="` + app + `",executor_id="0",pool="G1 Old Gen",role="executor",source="spark_sink",type="heap"} `,
		`spark_executor_memory_bytes{app_id="` + app + `",executor_id="0",kind="OnHeapExecutionMemory",role="executor",source="spark_sink"} `,
		`sparkdx_serve_sink_lines_total{outcome="mapped",sink="graphite"} `,
	} {
		if !strings.Contains(string(body), series) {
			t.Errorf("/metrics has no %s", series)
		}
	}
}

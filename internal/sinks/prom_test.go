package sinks

import (
	"bytes"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestMetricsPromtool: the /metrics text of Spark's own report passes
// promtool's lint (names, units, _total on counters only).
func TestMetricsPromtool(t *testing.T) {
	promtool := sparktest.Program(t, "promtool")
	b, _ := readFixture(t, "spark-4.3.0", "graphite.txt", sinkGraphite, ParseGraphite)
	now := time.Now()
	l := newLatest(256, 20_000, time.Hour)
	l.record(b, now)
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(newCollector(l, newStats(), func() time.Time { return now })); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	text := rec.Body.String()
	if !strings.Contains(text, `jvm_memory_used_bytes{app_id=`) {
		t.Fatalf("no jvm_memory_used_bytes in:\n%s", text)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}

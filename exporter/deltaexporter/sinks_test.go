package deltaexporter

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
)

// graphiteFixture is what a real Spark 4.3.0 application's GraphiteSink
// sent from its driver and executor 0 (internal/sinks/testdata says how it
// was recorded).
const graphiteFixture = "../../internal/sinks/testdata/spark-4.3.0/graphite.txt"

// sendGraphiteFixture sends the fixture to addr, one TCP connection per
// instance as Spark's reporters keep them, dialling until the collector
// listens, and returns the fixture's application id.
func sendGraphiteFixture(t *testing.T, addr string) string {
	t.Helper()
	b, err := os.ReadFile(graphiteFixture)
	if err != nil {
		t.Fatal(err)
	}
	byInstance := map[string][]byte{}
	var appID string
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		parts := strings.SplitN(string(l), ".", 3)
		if len(parts) < 3 {
			continue
		}
		appID = parts[0]
		byInstance[parts[1]] = append(byInstance[parts[1]], l...)
	}
	for inst, lines := range byInstance {
		var c net.Conn
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			if c, err = net.Dial("tcp", addr); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the collector's sparksinks receiver at %s: %v", addr, err)
			}
		}
		if _, err := c.Write(lines); err != nil {
			t.Fatalf("send %s's lines: %v", inst, err)
		}
		c.Close()
	}
	return appID
}

// checkSinkRows: the sink's lines are in samples as an agent's push would
// be: the driver's and executor 0's heap pools and Spark's executor memory,
// keyed by the application and executor the metric names carry, their
// values those Spark sent.
func checkSinkRows(t *testing.T, rows []delta.SampleRow, appID string) {
	t.Helper()
	want := map[string]float64{} // "executor kind" → the value Spark sent
	b, err := os.ReadFile(graphiteFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && strings.Contains(f[0], ".ExecutorMetrics.") {
			parts := strings.Split(f[0], ".")
			v, _ := strconv.ParseFloat(f[1], 64)
			want[parts[1]+" "+parts[len(parts)-1]] = v
		}
	}
	pools := map[string]int{}
	found := 0
	for _, r := range rows {
		if r.AppID != appID || r.Attributes["sparkdx.sink"] != "graphite" {
			continue
		}
		if wantRole := map[bool]string{true: "driver", false: "executor"}[r.ExecutorID == "driver"]; r.Role != wantRole {
			t.Errorf("%s row of executor %s: role %q, want %q", r.Metric, r.ExecutorID, r.Role, wantRole)
		}
		switch r.Metric {
		case "jvm.memory.used":
			pools[r.ExecutorID]++
		case "spark.executor.memory.usage":
			k := r.ExecutorID + " " + r.Attributes["spark.memory.kind"]
			if v, ok := want[k]; ok {
				found++
				if r.Value != v {
					t.Errorf("spark.executor.memory.usage %s: %g in samples, Spark sent %g", k, r.Value, v)
				}
			}
		}
	}
	if pools["driver"] == 0 || pools["0"] == 0 {
		t.Errorf("jvm.memory.used rows of %s from the GraphiteSink by executor: %v, want the driver's and executor 0's pools", appID, pools)
	}
	if found == 0 {
		t.Errorf("no spark.executor.memory.usage row of %s matches what its ExecutorMetrics source sent (%d values)", appID, len(want))
	}
	t.Logf("GraphiteSink → sparksinks → samples: %v pool rows, %d executor memory rows equal to what Spark sent", pools, found)
}

// validateShipped checks the distribution's configuration
// (deploy/otelcol/config.yaml) with the collector's own validation: every
// receiver, processor and exporter it names is in the build and configured
// as it expects.
func validateShipped(t *testing.T, otelcol string) {
	t.Helper()
	cmd := exec.Command(otelcol, "validate", "--config", filepath.Join("..", "..", "deploy", "otelcol", "config.yaml"))
	cmd.Env = append(os.Environ(), "SPARKDX_DELTA="+t.TempDir(), "AWS_ENDPOINT_URL=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("otelcol validate deploy/otelcol/config.yaml: %v\n%s", err, out)
	}
}

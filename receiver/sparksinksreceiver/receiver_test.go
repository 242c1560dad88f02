package sparksinksreceiver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/otlpin"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receivertest"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// fixtures are the lines real Spark applications' sinks sent, recorded for
// internal/sinks with the samples serve keeps from them (its golden files):
// the receiver must keep the same.
const fixtures = "../../internal/sinks/testdata"

func sparkLines(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(fixtures, "spark-*"))
	if len(dirs) == 0 {
		t.Fatalf("no %s/spark-* fixture", fixtures)
	}
	return dirs
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// start runs the receiver as a collector would, from its factory.
func start(t *testing.T, cfg *Config) (*sinksReceiver, *consumertest.MetricsSink) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	sink := new(consumertest.MetricsSink)
	f := NewFactory()
	r, err := f.CreateMetrics(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	return r.(*sinksReceiver), sink
}

// samples is what serve keeps of the metrics the pipeline got, one
// "executor metric value" per line as internal/sinks' golden files hold
// them, sorted (several batches arrive).
func samples(t *testing.T, got []pmetric.Metrics) []string {
	t.Helper()
	var lines []string
	for _, m := range got {
		b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(m)
		if err != nil {
			t.Fatal(err)
		}
		var md metricpb.MetricsData
		if err := proto.Unmarshal(b, &md); err != nil {
			t.Fatal(err)
		}
		for _, s := range otlpin.Samples(&md) {
			lines = append(lines, fmt.Sprintf("%s %s %g", s.ExecutorID, s.Metric, s.Value))
		}
	}
	slices.Sort(lines)
	return lines
}

func golden(t *testing.T, path string) []string {
	t.Helper()
	var lines []string
	for _, l := range readLines(t, path) {
		lines = append(lines, string(l))
	}
	slices.Sort(lines)
	return lines
}

func compare(t *testing.T, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		t.Logf("the pipeline got the %d samples serve keeps from the same lines", len(got))
		return
	}
	missing, extra := setDiff(want, got), setDiff(got, want)
	t.Errorf("the pipeline got %d samples, serve keeps %d of the same lines; missing %d (first %v), extra %d (first %v)",
		len(got), len(want), len(missing), first(missing, 5), len(extra), first(extra, 5))
}

func setDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
		}
	}
	return out
}

func first(xs []string, n int) []string { return xs[:min(n, len(xs))] }

// TestGraphiteFixture sends what real Spark 3.5.9 and 4.3.0 GraphiteSinks
// sent (one TCP connection per instance, as Spark's reporter keeps it) and
// checks the pipeline receives the samples serve keeps from the same lines.
func TestGraphiteFixture(t *testing.T) {
	for _, dir := range sparkLines(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r, sink := start(t, &Config{GraphiteEndpoint: "127.0.0.1:0"})
			conns := map[string]net.Conn{}
			for _, l := range readLines(t, filepath.Join(dir, "graphite.txt")) {
				inst := instance(l)
				c := conns[inst]
				if c == nil {
					var err error
					if c, err = net.Dial("tcp", r.rcv.GraphiteAddr().String()); err != nil {
						t.Fatal(err)
					}
					conns[inst] = c
				}
				if _, err := c.Write(append(l, '\n')); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range conns {
				c.Close()
			}
			waitPoints(t, sink, len(golden(t, filepath.Join(dir, "graphite.golden"))))
			if err := r.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			compare(t, samples(t, sink.AllMetrics()), golden(t, filepath.Join(dir, "graphite.golden")))
		})
	}
}

// TestStatsdFixture: the same for StatsdSink's UDP datagrams, sent one
// line each (Spark packs several into one datagram up to its size; the
// receiver reads either).
func TestStatsdFixture(t *testing.T) {
	for _, dir := range sparkLines(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r, sink := start(t, &Config{StatsdEndpoint: "127.0.0.1:0"})
			c, err := net.Dial("udp", r.rcv.StatsdAddr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			lines := readLines(t, filepath.Join(dir, "statsd.txt"))
			for i := 0; i < len(lines); i += 20 { // datagrams of 20 lines, under 1,500 bytes
				if _, err := c.Write(bytes.Join(lines[i:min(i+20, len(lines))], []byte("\n"))); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Millisecond) // UDP: do not outrun the socket's buffer
			}
			waitPoints(t, sink, len(golden(t, filepath.Join(dir, "statsd.golden"))))
			if err := r.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			compare(t, samples(t, sink.AllMetrics()), golden(t, filepath.Join(dir, "statsd.golden")))
		})
	}
}

// instance is a Graphite line's "<app>.<executor>" prefix.
func instance(l []byte) string {
	parts := strings.SplitN(string(l), ".", 3)
	if len(parts) < 3 {
		return string(l)
	}
	return parts[0] + "." + parts[1]
}

// waitPoints waits until the sink holds about n points or 10 s pass; the
// comparison after it says what is missing. StatsD batches flush on the
// receiver's shutdown at the latest, which follows.
func waitPoints(t *testing.T, sink *consumertest.MetricsSink, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); sink.DataPointCount() < n && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConfig: a configuration with no endpoint or a bound below Spark's
// lines fails the collector's validation, naming the receiver.
func TestConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "neither a Graphite nor a StatsD address"},
		{Config{GraphiteEndpoint: ":0", MaxLineBytes: 64}, "below Spark's longest lines"},
		{Config{StatsdEndpoint: ":0", MaxBatch: -1}, "negative bound"},
		{Config{StatsdEndpoint: ":0", IdleTimeout: -time.Second}, "idle_timeout is negative"},
	} {
		err := c.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error with %q", c.cfg, err, c.want)
		}
	}
	if err := (&Config{GraphiteEndpoint: ":2003", StatsdEndpoint: ":8125"}).Validate(); err != nil {
		t.Errorf("both endpoints: %v", err)
	}
}

// TestPortInUse: a taken endpoint fails Start, so the collector does not
// run without the receiver it was configured with.
func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f := NewFactory()
	r, _ := f.CreateMetrics(context.Background(), receivertest.NewNopSettings(f.Type()), &Config{GraphiteEndpoint: l.Addr().String()}, new(consumertest.MetricsSink))
	if err := r.Start(context.Background(), componenttest.NewNopHost()); err == nil || !strings.Contains(err.Error(), "graphite listen") {
		t.Errorf("Start on a taken port: %v, want a graphite listen error", err)
	}
	if err := r.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown after a failed Start: %v", err)
	}
}

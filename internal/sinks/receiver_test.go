package sinks

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// harness runs a Receiver on loopback and keeps what it sends on.
type harness struct {
	t   *testing.T
	r   *Receiver
	mu  sync.Mutex
	got []*metricpb.MetricsData
}

func startReceiver(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t}
	cfg.Sink = func(_ context.Context, md *metricpb.MetricsData) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.got = append(h.got, md)
		return nil
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

// points are the OTLP points sent on so far, as "exec metric attrs=value @ms".
func (h *harness) points() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, md := range h.got {
		for _, rm := range md.ResourceMetrics {
			exec := stringAttr(rm.Resource.Attributes, "spark.executor.id")
			for _, m := range rm.ScopeMetrics[0].Metrics {
				for _, p := range numberPoints(m) {
					var attrs []string
					for _, kv := range p.Attributes {
						attrs = append(attrs, kv.Value.GetStringValue())
					}
					out = append(out, fmt.Sprintf("%s %s%v=%v @%d", exec, m.Name, attrs, p.GetAsDouble(), p.TimeUnixNano/1e6))
				}
			}
		}
	}
	return out
}

// waitPoints waits until n points were sent on.
func (h *harness) waitPoints(n int) []string {
	h.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got := h.points(); len(got) >= n {
			return got
		} else if time.Now().After(deadline) {
			h.t.Fatalf("after 10s %d points sent on, want %d: %q", len(got), n, got)
		}
	}
}

// gather renders the receiver's collector as "name{labels} value" lines.
func (h *harness) gather() []string {
	h.t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(h.r.Collector()); err != nil {
		h.t.Fatal(err)
	}
	fams, err := reg.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, f := range fams {
		for _, m := range f.Metric {
			out = append(out, f.GetName()+labelText(m.Label)+" "+fmt.Sprint(metricValue(m)))
		}
	}
	return out
}

func labelText(ls []*dto.LabelPair) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func metricValue(m *dto.Metric) float64 {
	if m.Gauge != nil {
		return m.Gauge.GetValue()
	}
	return m.Counter.GetValue()
}

func send(t *testing.T, network, addr string, data ...string) {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, d := range data {
		if _, err := c.Write([]byte(d)); err != nil {
			t.Fatal(err)
		}
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

const testApp = "app-20261127220101-0007"

func TestReceiverGraphite(t *testing.T) {
	h := startReceiver(t, Config{GraphiteAddr: "127.0.0.1:0"})
	send(t, "tcp", h.r.GraphiteAddr().String(),
		testApp+".1.jvm.pools.G1-Old-Gen.used 300 1764280000\n",
		testApp+".1.jvm.pools.G1-Eden-Space.used 200 1764280000\n"+testApp+".1.jvm.heap.used 500 1764280000\n",
		testApp+".1.ExecutorMetrics.OnHeapExecutionMemory 65536 1764280000\n",
		testApp+".1.BlockManager.memory.memUsed_MB 0 1764280000\n",
		"garbage\n")
	got := h.waitPoints(3)
	for _, want := range []string{
		"1 jvm.memory.used[G1 Eden Space heap]=200 @1764280000000",
		"1 jvm.memory.used[G1 Old Gen heap]=300 @1764280000000",
		"1 spark.executor.memory.usage[OnHeapExecutionMemory]=65536 @1764280000000",
	} {
		if !contains(got, want) {
			t.Errorf("sent on %q, want %q among them", got, want)
		}
	}
	prom := h.gather()
	for _, want := range []string{
		"jvm_memory_used_bytes{app_id=" + testApp + ",executor_id=1,pool=G1 Old Gen,role=executor,source=spark_sink,type=heap} 300",
		"spark_executor_memory_bytes{app_id=" + testApp + ",executor_id=1,kind=OnHeapExecutionMemory,role=executor,source=spark_sink} 65536",
		"sparkdx_serve_sink_lines_total{outcome=mapped,sink=graphite} 3",
		"sparkdx_serve_sink_lines_total{outcome=unmapped,sink=graphite} 1", // heap.used
		"sparkdx_serve_sink_lines_total{outcome=other,sink=graphite} 1",    // BlockManager
		"sparkdx_serve_sink_lines_total{outcome=bad,sink=graphite} 1",
	} {
		if !contains(prom, want) {
			t.Errorf("/metrics has %q, want %q among them", prom, want)
		}
	}
}

// TestReceiverGraphiteReports: two reports on one connection (a relay)
// go on as two batches, each at its own time.
func TestReceiverGraphiteReports(t *testing.T) {
	h := startReceiver(t, Config{GraphiteAddr: "127.0.0.1:0"})
	send(t, "tcp", h.r.GraphiteAddr().String(),
		testApp+".driver.jvm.pools.G1-Old-Gen.used 1 1764280000\n",
		testApp+".driver.jvm.pools.G1-Old-Gen.used 2 1764280001\n")
	h.waitPoints(2)
	h.mu.Lock()
	n := len(h.got)
	h.mu.Unlock()
	if n != 2 {
		t.Errorf("%d batches, want 2 (one per report): %q", n, h.points())
	}
}

func TestReceiverStatsdBurst(t *testing.T) {
	h := startReceiver(t, Config{StatsdAddr: "127.0.0.1:0"})
	addr := h.r.StatsdAddr().String()
	// One report: a datagram per metric, as StatsdSink sends them.
	send(t, "udp", addr, testApp+".0.jvm.pools.G1-Old-Gen.used:300|g")
	send(t, "udp", addr, testApp+".0.jvm.pools.G1-Eden-Space.used:200|g")
	send(t, "udp", addr, testApp+".0.executor.cpuTime:2000000000|c\n"+testApp+".0.jvm.G1-Young-Generation.count:3|g")
	got := h.waitPoints(4)
	stamp := ""
	for _, p := range got {
		at := p[strings.LastIndexByte(p, '@'):]
		if stamp == "" {
			stamp = at
		}
		if at != stamp {
			t.Errorf("points of one burst at different times: %q", got)
			break
		}
	}
	for _, want := range []string{"0 spark.executor.cpu.time[]=2", "0 jvm.gc.count[G1 Young Generation end of minor GC]=3"} {
		if !contains(got, want+" "+stamp) {
			t.Errorf("sent on %q, want %q", got, want+" "+stamp)
		}
	}
}

func TestReceiverBounds(t *testing.T) {
	t.Run("line length", func(t *testing.T) {
		h := startReceiver(t, Config{GraphiteAddr: "127.0.0.1:0", MaxLineBytes: 128})
		send(t, "tcp", h.r.GraphiteAddr().String(), strings.Repeat("x", 5000)+" 1 1764280000\n",
			testApp+".0.jvm.pools.Metaspace.used 9 1764280000\n")
		got := h.waitPoints(1)
		if !contains(got, "0 jvm.memory.used[Metaspace non_heap]=9 @1764280000000") {
			t.Errorf("sent on %q, want the line after the long one", got)
		}
		if want := "sparkdx_serve_sink_lines_total{outcome=too_long,sink=graphite} 1"; !contains(h.gather(), want) {
			t.Errorf("want %q in %q", want, h.gather())
		}
	})
	t.Run("connections", func(t *testing.T) {
		h := startReceiver(t, Config{GraphiteAddr: "127.0.0.1:0", MaxConns: 1})
		held, err := net.Dial("tcp", h.r.GraphiteAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		want := "sparkdx_serve_sink_connections_rejected_total{} 1"
		for deadline := time.Now().Add(10 * time.Second); !contains(h.gather(), want); time.Sleep(20 * time.Millisecond) {
			c, err := net.Dial("tcp", h.r.GraphiteAddr().String())
			if err == nil {
				c.Close()
			}
			if time.Now().After(deadline) {
				t.Fatalf("a second connection while one is open: want %q in %q", want, h.gather())
			}
		}
	})
	t.Run("series per app", func(t *testing.T) {
		h := startReceiver(t, Config{GraphiteAddr: "127.0.0.1:0", MaxSeriesPerApp: 2})
		var lines []string
		for _, pool := range []string{"G1-Eden-Space", "G1-Old-Gen", "G1-Survivor-Space", "Metaspace"} {
			lines = append(lines, testApp+".0.jvm.pools."+pool+".used 1 1764280000\n")
		}
		send(t, "tcp", h.r.GraphiteAddr().String(), lines...)
		want := "sparkdx_serve_sink_lines_total{outcome=refused,sink=graphite} 2"
		for deadline := time.Now().Add(10 * time.Second); !contains(h.gather(), want); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("want %q in %q", want, h.gather())
			}
		}
		if got := h.points(); len(got) != 2 {
			t.Errorf("sent on %q, want the 2 series within the bound", got)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"graphite", Config{GraphiteAddr: ":2003"}, true},
		{"statsd", Config{StatsdAddr: ":8125"}, true},
		{"neither", Config{}, false},
		{"negative", Config{GraphiteAddr: ":2003", MaxConns: -1}, false},
		{"short lines", Config{GraphiteAddr: ":2003", MaxLineBytes: 64}, false},
	} {
		if err := c.cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

func stringAttr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

func numberPoints(m *metricpb.Metric) []*metricpb.NumberDataPoint {
	if s := m.GetSum(); s != nil {
		return s.DataPoints
	}
	return m.GetGauge().GetDataPoints()
}

// TestReceiverShutdownFlushes: what a connection sent before serve stops
// is still passed on.
func TestReceiverShutdownFlushes(t *testing.T) {
	var mu sync.Mutex
	var got []*metricpb.MetricsData
	r, err := New(Config{GraphiteAddr: "127.0.0.1:0", Sink: func(_ context.Context, md *metricpb.MetricsData) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, md)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	c, err := net.Dial("tcp", r.GraphiteAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(testApp + ".0.jvm.pools.Metaspace.used 9 1764280000\n")); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, r: r}
	want := "sparkdx_serve_sink_lines_total{outcome=mapped,sink=graphite} 1"
	for deadline := time.Now().Add(10 * time.Second); !contains(h.gather(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the line was not read: %q", h.gather())
		}
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Errorf("%d batches passed on at shutdown, want 1", len(got))
	}
}

// TestLatestStale: a series not sent for StaleAfter leaves /metrics.
func TestLatestStale(t *testing.T) {
	now := time.Unix(1764280000, 0)
	l := newLatest(4, 4, time.Minute)
	b := newBatch(sinkGraphite, 4)
	p := Point{App: testApp, Executor: "0", Source: "jvm", Metric: "pools.Metaspace.used", Value: 9, TimeMs: now.UnixMilli()}
	m, _ := mapPoint(p)
	b.add(p, m)
	l.record(b, now)
	for _, c := range []struct {
		at   time.Duration
		want int
	}{{0, 1}, {time.Minute, 1}, {time.Minute + time.Second, 0}} {
		clock := now.Add(c.at)
		ch := make(chan prometheus.Metric, 16)
		newCollector(l, newStats(), func() time.Time { return clock }).Collect(ch)
		close(ch)
		series := 0
		for range ch {
			series++
		}
		if series -= 12 + 2; series != c.want { // the counters: 6 outcomes × 2 sinks, connections, flush errors
			t.Errorf("%v after: %d series, want %d", c.at, series, c.want)
		}
	}
}

func TestReceiverStatsdTooLong(t *testing.T) {
	h := startReceiver(t, Config{StatsdAddr: "127.0.0.1:0", MaxLineBytes: 128})
	send(t, "udp", h.r.StatsdAddr().String(), strings.Repeat("x", 500)+":1|g\n"+testApp+".0.jvm.direct.used:5|g")
	got := h.waitPoints(1)
	if len(got) != 1 || !strings.HasPrefix(got[0], "0 jvm.buffer.memory.used[direct]=5 @") {
		t.Errorf("sent on %q, want executor 0's direct buffers", got)
	}
	if want := "sparkdx_serve_sink_lines_total{outcome=too_long,sink=statsd} 1"; !contains(h.gather(), want) {
		t.Errorf("want %q in %q", want, h.gather())
	}
}

// TestStatsdReports: a process's report keeps one time and goes on in one
// batch while another process sends without pause.
func TestStatsdReports(t *testing.T) {
	var got []*metricpb.MetricsData
	r := &Receiver{cfg: Config{Sink: func(_ context.Context, md *metricpb.MetricsData) error {
		got = append(got, md)
		return nil
	}}, stats: newStats(), latest: newLatest(256, 20_000, time.Hour)}
	r.cfg.defaults()
	sr := &statsdReader{r: r, b: newBatch(sinkStatsd, r.cfg.MaxBatch), open: map[process]*report{}}
	t0 := time.Unix(1764280000, 0)
	ctx := context.Background()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for ms := 0; ms <= 2500; ms += 50 {
		// Executor 1 never pauses (a made-up sender: Spark's pause between reports).
		sr.datagram(ctx, []byte(testApp+".1.jvm.pools.G1-Eden-Space.used:1|g"), at(ms))
		switch ms {
		case 1950:
			sr.datagram(ctx, []byte(testApp+".0.jvm.pools.G1-Eden-Space.used:200|g"), at(ms))
		case 2050:
			sr.datagram(ctx, []byte(testApp+".0.jvm.pools.G1-Old-Gen.used:300|g"), at(ms))
		}
		sr.flushQuiet(ctx, at(ms))
	}
	h := &harness{t: t, r: r, got: got}
	var exec0 []string
	for _, p := range h.points() {
		if strings.HasPrefix(p, "0 ") {
			exec0 = append(exec0, p)
		}
	}
	stamp := fmt.Sprintf(" @%d", at(1950).UnixMilli())
	want := []string{"0 jvm.memory.used[G1 Eden Space heap]=200" + stamp, "0 jvm.memory.used[G1 Old Gen heap]=300" + stamp}
	if strings.Join(exec0, "|") != strings.Join(want, "|") {
		t.Errorf("executor 0's points %q, want %q", exec0, want)
	}
	n := 0
	for _, md := range got {
		for _, rm := range md.ResourceMetrics {
			if stringAttr(rm.Resource.Attributes, "spark.executor.id") == "0" {
				n++
			}
		}
	}
	if n != 1 {
		t.Errorf("executor 0's report in %d batches, want 1", n)
	}
}

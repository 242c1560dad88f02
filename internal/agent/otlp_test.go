package agent

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// otlpPeer is an OTLP/HTTP metrics receiver that keeps what it is sent.
type otlpPeer struct {
	mu   sync.Mutex
	reqs []*colmetrics.ExportMetricsServiceRequest
	path string
}

func (p *otlpPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &colmetrics.ExportMetricsServiceRequest{}
	if err := proto.Unmarshal(b, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	p.path = r.URL.Path
	p.mu.Unlock()
	out, _ := proto.Marshal(&colmetrics.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func TestOTLPPush(t *testing.T) {
	peer := &otlpPeer{}
	srv := httptest.NewServer(peer)
	defer srv.Close()
	a := fixtureAgent(t, filepath.Join("testdata", "node1"), Config{})
	sample(t, a)
	ctx := context.Background()
	o, err := NewOTLP(ctx, a, srv.URL, ProtocolHTTP, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := o.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	peer.mu.Lock()
	defer peer.mu.Unlock()
	if len(peer.reqs) == 0 || peer.path != "/v1/metrics" {
		t.Fatalf("got %d requests at %q, want at least one at /v1/metrics", len(peer.reqs), peer.path)
	}
	metrics := map[string]*metricspb.Metric{}
	var host string
	for _, rm := range peer.reqs[0].ResourceMetrics {
		for _, kv := range rm.Resource.Attributes {
			if kv.Key == "host.name" {
				host = kv.Value.GetStringValue()
			}
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				metrics[m.Name] = m
			}
		}
	}
	if host != "node1" {
		t.Errorf("got host.name %q, want node1", host)
	}
	var names []string
	for n := range metrics {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, want := range []string{"jvm.memory.used", "jvm.memory.committed", "jvm.memory.limit", "jvm.gc.duration", "jvm.class.loaded",
		"jvm.class.count", "jvm.thread.count", "process.memory.usage", "process.cpu.time", "process.thread.count",
		"sparkdx.cgroup.memory.limit", "sparkdx.cgroup.oom_kills", "sparkdx.process.tree.memory.usage", "sparkdx.process.tree.cpu.time"} {
		if metrics[want] == nil {
			t.Errorf("metric %s missing; got %v", want, names)
		}
	}
	// The executor's eden pool, with the attributes the conventions name.
	found := false
	for _, dp := range metrics["jvm.memory.used"].GetSum().GetDataPoints() {
		attrs := map[string]string{}
		for _, kv := range dp.Attributes {
			attrs[kv.Key] = kv.Value.GetStringValue()
		}
		if attrs["spark.executor.id"] == "7" && attrs["jvm.memory.pool.name"] == "eden" && attrs["jvm.memory.type"] == "heap" {
			found = true
			if dp.GetAsInt() != 10485760 {
				t.Errorf("executor 7 eden used: got %d, want 10485760", dp.GetAsInt())
			}
		}
	}
	if !found {
		t.Error("no jvm.memory.used point for executor 7's eden")
	}
	// Every collector point says which kind of collection it counts.
	actions := map[string]bool{}
	for _, dp := range metrics["jvm.gc.count"].GetSum().GetDataPoints() {
		for _, kv := range dp.Attributes {
			if kv.Key == "jvm.gc.action" {
				actions[kv.Value.GetStringValue()] = true
			}
		}
	}
	if !actions["end of minor GC"] || !actions["end of major GC"] {
		t.Errorf("jvm.gc.count actions: got %v, want minor and major collections", actions)
	}
	// Python workers' CPU, by mode, for serve's per-run table.
	modes := map[string]bool{}
	for _, dp := range metrics["sparkdx.process.tree.cpu.time"].GetSum().GetDataPoints() {
		attrs := map[string]string{}
		for _, kv := range dp.Attributes {
			attrs[kv.Key] = kv.Value.GetStringValue()
		}
		if attrs["sparkdx.process.kind"] == "python" {
			modes[attrs["cpu.mode"]] = true
		}
	}
	if !modes["user"] || !modes["system"] {
		t.Errorf("sparkdx.process.tree.cpu.time: python points by mode %v, want user and system", modes)
	}
	if s := metrics["jvm.class.loaded"].GetSum(); s == nil || !s.IsMonotonic {
		t.Errorf("jvm.class.loaded: got %v, want a monotonic sum", metrics["jvm.class.loaded"])
	}
}

func TestOTLPRejectsBadEndpoint(t *testing.T) {
	a := fixtureAgent(t, filepath.Join("testdata", "node1"), Config{})
	for _, ep := range []string{"127.0.0.1:4318", "ftp://x", "http://"} {
		if _, err := NewOTLP(context.Background(), a, ep, ProtocolHTTP, time.Second); err == nil {
			t.Errorf("NewOTLP(%q): got no error, want one", ep)
		}
	}
}

// TestOTLPPushToCollector pushes a snapshot to a real OpenTelemetry
// Collector over each protocol (the Helm chart's default is grpc): the
// collector receives the executor's heap pools with the node's host.name.
func TestOTLPPushToCollector(t *testing.T) {
	for _, protocol := range []string{ProtocolGRPC, ProtocolHTTP} {
		t.Run(protocol, func(t *testing.T) {
			c := sparktest.StartCollector(t, sparktest.CollectorOptions{})
			addr := c.HTTP
			if protocol == ProtocolGRPC {
				addr = c.GRPC
			}
			a := fixtureAgent(t, filepath.Join("testdata", "node1"), Config{})
			sample(t, a)
			ctx := context.Background()
			o, err := NewOTLP(ctx, a, "http://"+addr, protocol, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Shutdown(ctx); err != nil { // pushes what is pending
				t.Fatal(err)
			}
			c.Stop(t)
			b, err := os.ReadFile(c.MetricsPath())
			if err != nil {
				t.Fatalf("%v\n%s", err, c.Log())
			}
			found := false
			for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
				var md metricspb.MetricsData
				if err := protojson.Unmarshal(line, &md); err != nil {
					t.Fatalf("collector output: %v", err)
				}
				for _, rm := range md.ResourceMetrics {
					host := ""
					for _, kv := range rm.GetResource().GetAttributes() {
						if kv.Key == "host.name" {
							host = kv.Value.GetStringValue()
						}
					}
					for _, sm := range rm.ScopeMetrics {
						for _, m := range sm.Metrics {
							if m.Name == "jvm.memory.used" && host == "node1" && len(m.GetSum().GetDataPoints()) > 0 {
								found = true
							}
						}
					}
				}
			}
			if !found {
				t.Errorf("the collector received no jvm.memory.used from node1 over %s:\n%s", protocol, c.Log())
			}
		})
	}
}

package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"

	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

type testServer struct {
	url   string
	in    *ingest.Ingester
	st    *store.Store
	srv   *Server
	token string
	stop  func()
}

// startServer runs ingest and HTTP over roots with a store in dataDir.
func startServer(t testing.TB, dataDir, token string, roots ...string) *testServer {
	t.Helper()
	return startServerWith(t, dataDir, roots, func(ic *ingest.Config, sc *Config) {
		ic.Poll = 50 * time.Millisecond
		sc.AuthToken = token
		sc.MetricsWindow = 100 * 365 * 24 * time.Hour
	})
}

// startServerWith is startServer with serve's defaults, changed by set.
func startServerWith(t testing.TB, dataDir string, roots []string, set func(*ingest.Config, *Config)) *testServer {
	t.Helper()
	return startServerOn(t, nil, dataDir, roots, set)
}

// startServerOn is startServerWith serving on ln (nil: a new 127.0.0.1
// port), for servers that must know each other's URLs before they start.
func startServerOn(t testing.TB, ln net.Listener, dataDir string, roots []string, set func(*ingest.Config, *Config)) *testServer {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	icfg := ingest.Config{Roots: roots, Store: st, Watch: true, Views: Views, Analyze: AnalyzeFunc(st)}
	var scfg Config
	set(&icfg, &scfg)
	in, err := ingest.New(icfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { in.Run(ctx); close(done) }()
	scfg.Ingest, scfg.Store = in, st
	srv := New(scfg)
	hs := httptest.NewUnstartedServer(srv) // binds 127.0.0.1
	if ln != nil {
		hs.Listener.Close()
		hs.Listener = ln
	}
	hs.Start()
	ts := &testServer{url: hs.URL, in: in, st: st, srv: srv, token: scfg.AuthToken}
	ts.stop = func() {
		hs.Close()
		cancel()
		<-done
		st.Close()
	}
	t.Cleanup(func() {
		if ts.stop != nil {
			ts.stop()
			ts.stop = nil
		}
	})
	return ts
}

// waitIdle waits until ingest has scanned and has nothing queued or in
// flight across two scans.
func (ts *testServer) waitIdle(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	calm := 0
	for time.Now().Before(deadline) {
		st := ts.in.Status()
		if st.Scanned && st.QueueDepth == 0 && st.InFlight == 0 {
			calm++
			if calm >= 3 {
				return
			}
		} else {
			calm = 0
		}
		time.Sleep(60 * time.Millisecond)
	}
	t.Fatalf("ingest not idle after 60s: %+v", ts.in.Status())
}

// get fetches path and returns status and body.
func (ts *testServer) get(t testing.TB, path string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", ts.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts.token != "" {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func (ts *testServer) getJSON(t testing.TB, path string, v any) {
	t.Helper()
	code, b := ts.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", path, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, b)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// newLocalServer serves h on 127.0.0.1 until the test ends.
func newLocalServer(t testing.TB, h http.Handler) string {
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

// agentPush posts OTLP metrics as a sparkdx agent on one node would for
// app's executors: heap (two pools), GC time, classes and Python RSS,
// every 10s from t0 for n samples.
func agentPush(t testing.TB, url, app string, execs []string, t0 time.Time, n int) {
	t.Helper()
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	var heap, gc, classes, py []*metricpb.NumberDataPoint
	for i := range n {
		ts := uint64(t0.Add(time.Duration(i) * 10 * time.Second).UnixNano())
		for k, e := range execs {
			base := []*commonpb.KeyValue{str("spark.app.id", app), str("spark.executor.id", e)}
			with := func(kv ...*commonpb.KeyValue) []*commonpb.KeyValue {
				return append(append([]*commonpb.KeyValue{}, base...), kv...)
			}
			for _, pool := range []string{"G1 Eden Space", "G1 Old Gen"} {
				heap = append(heap, &metricpb.NumberDataPoint{TimeUnixNano: ts,
					Value:      &metricpb.NumberDataPoint_AsInt{AsInt: int64((200 + 40*i + 90*k) << 20)},
					Attributes: with(str("jvm.memory.type", "heap"), str("jvm.memory.pool.name", pool))})
			}
			gc = append(gc, &metricpb.NumberDataPoint{TimeUnixNano: ts, Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: 0.3 * float64(i*(k+1))},
				Attributes: with(str("jvm.gc.name", "G1 Young Generation"))})
			classes = append(classes, &metricpb.NumberDataPoint{TimeUnixNano: ts, Value: &metricpb.NumberDataPoint_AsInt{AsInt: int64(9000 + 150*i)},
				Attributes: with()})
			py = append(py, &metricpb.NumberDataPoint{TimeUnixNano: ts, Value: &metricpb.NumberDataPoint_AsInt{AsInt: int64((50 + 30*i) << 20)},
				Attributes: with(str("sparkdx.process.kind", "python"))})
		}
	}
	sum := func(name string, pts []*metricpb.NumberDataPoint) *metricpb.Metric {
		return &metricpb.Metric{Name: name, Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: pts}}}
	}
	req := &metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("host.name", "node-1")}},
		ScopeMetrics: []*metricpb.ScopeMetrics{{Metrics: []*metricpb.Metric{sum("jvm.memory.used", heap), sum("jvm.gc.duration", gc),
			sum("jvm.class.count", classes), sum("sparkdx.process.tree.memory.usage", py)}}},
	}}}
	sparktest.PostOTLPMetrics(t, url, req)
}

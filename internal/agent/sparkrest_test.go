package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/otlpin"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

func TestParseListeners(t *testing.T) {
	const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0FC8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4711 1 0000000000000000 100 0 0 10 0
   1: 00000000:1BA6 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4712 1 0000000000000000 100 0 0 10 0
   2: 0100007F:0FC8 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 4713 1 0000000000000000 20 4 30 10 -1
   3: 0900000A:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4714 1 0000000000000000 100 0 0 10 0
`
	const tcp6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:0FC8 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5001 1 0000000000000000 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5002 1 0000000000000000 100 0 0 10 0
   2: 00000000000000000000000001000000:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5003 1 0000000000000000 100 0 0 10 0
`
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		// The established connection (state 01) is left out.
		{"tcp", tcp, []string{"127.0.0.1:4040 4711", "0.0.0.0:7078 4712", "10.0.0.9:8080 4714"}},
		// IPv4-mapped addresses come back as IPv4.
		{"tcp6", tcp6, []string{"[::]:4040 5001", "127.0.0.1:8081 5002", "[::1]:8082 5003"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ls, err := parseListeners(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range ls {
				got = append(got, fmt.Sprintf("%s %d", netip.AddrPortFrom(l.addr, l.port), l.inode))
			}
			if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []string{
		"header\n   0: 0100007G:0FC8 00000000:0000 0A 0 0 0 1000 0 4711\n",
		"header\n   0: 0100007F:GGGG 00000000:0000 0A 0 0 0 1000 0 4711\n",
		"header\n   0: 0100007F:0FC8 00000000:0000 0A 0 0 0 1000 0 x\n",
		"header\n   0: 0100007F 00000000:0000 0A 0 0 0 1000 0 4711\n",
	} {
		if _, err := parseListeners(strings.NewReader(bad)); err == nil {
			t.Errorf("parseListeners(%q): got no error", bad)
		}
	}
}

func TestLocalAddrs(t *testing.T) {
	const fib = `Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 10.244.1.0/24 2 0 2
        |-- 10.244.1.0
           /24 link UNICAST
        |-- 10.244.1.17
           /32 host LOCAL
  +-- 127.0.0.0/8 2 0 2
     |-- 127.0.0.1
        /32 host LOCAL
Local:
  +-- 0.0.0.0/0 3 0 5
        |-- 10.244.1.17
           /32 host LOCAL
`
	got := localAddrs(strings.NewReader(fib))
	if len(got) != 1 || got[0].String() != "10.244.1.17" {
		t.Errorf("got %v, want [10.244.1.17] (loopback and networks left out, once)", got)
	}
}

func TestConfValue(t *testing.T) {
	argv := []string{"java", "-Dspark.ui.port=4050", "org.apache.spark.deploy.SparkSubmit", "--conf", "spark.ui.port=4060",
		"--conf=spark.ui.enabled=FALSE", "job.py"}
	if got := uiPort(argv); got != 4060 {
		t.Errorf("uiPort: got %d, want 4060 (the last one given)", got)
	}
	if uiEnabled(argv) {
		t.Error("uiEnabled: got true with spark.ui.enabled=FALSE")
	}
	if got := uiPort([]string{"java", "SparkSubmit"}); got != 0 || !uiEnabled([]string{"java"}) {
		t.Errorf("no conf: got port %d enabled %v, want 0 true", got, uiEnabled([]string{"java"}))
	}
}

// restDriverNode copies node1 and makes its driver (pid 200) listen on
// the test server's port, beside a port that is not the UI (refused) and
// a listener of another process; it returns the tree's root.
func restDriverNode(t testing.TB, ui string) string {
	t.Helper()
	root := copyFixture(t, "node1")
	_, port, _ := net.SplitHostPort(ui)
	p, _ := strconv.Atoi(port)
	refused := sparktestFreePort(t)
	tcp := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		fmt.Sprintf("   0: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9001 1 0 100 0 0 10 0\n", refused) +
		fmt.Sprintf("   1: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9002 1 0 100 0 0 10 0\n", p) +
		"   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9003 1 0 100 0 0 10 0\n"
	dir := filepath.Join(root, "proc", "200")
	if err := os.MkdirAll(filepath.Join(dir, "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "net", "tcp"), []byte(tcp), 0o644); err != nil {
		t.Fatal(err)
	}
	for fd, inode := range map[string]int{"900": 9001, "901": 9002} {
		if err := os.Symlink(fmt.Sprintf("socket:[%d]", inode), filepath.Join(dir, "fd", fd)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// sparktestFreePort returns a loopback port nothing listens on.
func sparktestFreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// sparkDriverServer serves the REST answers a real Spark 3.5.9 driver gave
// (testdata/sparkrest, recorded by TestRealSparkExecutorMemory -update).
func sparkDriverServer(t testing.TB) (*httptest.Server, string) {
	t.Helper()
	apps, err := os.ReadFile(filepath.Join("testdata", "sparkrest", "applications.json"))
	if err != nil {
		t.Fatal(err)
	}
	execs, err := os.ReadFile(filepath.Join("testdata", "sparkrest", "executors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ ID string }
	if err := json.Unmarshal(apps, &list); err != nil || len(list) == 0 {
		t.Fatalf("applications.json: %v", err)
	}
	app := list[0].ID
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/applications", func(w http.ResponseWriter, _ *http.Request) { w.Write(apps) })
	mux.HandleFunc("GET /api/v1/applications/"+app+"/executors", func(w http.ResponseWriter, _ *http.Request) { w.Write(execs) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, app
}

// TestSparkRESTFixture: the agent finds the driver's UI among its
// listening sockets, and the executors' memory the driver reported lands
// in the snapshot, in /metrics and, pushed over OTLP, in serve's samples
// under the executor's application and id.
func TestSparkRESTFixture(t *testing.T) {
	srv, app := sparkDriverServer(t)
	root := restDriverNode(t, srv.Listener.Addr().String())
	a := fixtureAgent(t, root, Config{SparkREST: time.Millisecond})
	if s := sample(t, a); byPID(s)[200].Spark != nil {
		t.Fatal("a REST answer before any poll ended")
	}
	a.rest.wait()
	s := sample(t, a)
	got := byPID(s)[200].Spark
	if got == nil {
		t.Fatalf("driver 200: no REST answer; errors %v", s.Errors)
	}
	if got.AppID != app || got.URL != "http://"+srv.Listener.Addr().String() || len(got.Executors) != 2 {
		t.Fatalf("got app %q at %s with %d executors, want %s at the test server with 2", got.AppID, got.URL, len(got.Executors), app)
	}
	x := byExec(got, "0")
	if x.Storage == nil || x.Storage.UsedOnHeap <= 0 || x.Storage.UsedOnHeap != x.MemoryUsed || x.Peak["JVMHeapMemory"] <= 0 {
		t.Errorf("executor 0: got %+v, want its cached blocks' memory and peaks", x)
	}
	// Executors on other drivers' nodes are not this agent's: only the
	// driver process carries them.
	for _, p := range s.Processes {
		if p.PID != 200 && p.Spark != nil {
			t.Errorf("pid %d (%s): got a REST answer", p.PID, p.Role)
		}
	}

	m := series(t, a)
	for _, tt := range []struct {
		name string
		want int64
	}{
		{fmt.Sprintf(`spark_executor_storage_memory_used_bytes{app_id=%q,area="on_heap",executor_id="0",host="node1"}`, app), x.Storage.UsedOnHeap},
		{fmt.Sprintf(`spark_executor_storage_memory_total_bytes{app_id=%q,area="on_heap",executor_id="0",host="node1"}`, app), x.Storage.TotalOnHeap},
		{fmt.Sprintf(`spark_executor_peak_memory_bytes{app_id=%q,executor_id="0",host="node1",kind="JVMHeapMemory"}`, app), x.Peak["JVMHeapMemory"]},
		{fmt.Sprintf(`spark_executor_peak_memory_bytes{app_id=%q,executor_id="driver",host="node1",kind="DirectPoolMemory"}`, app), byExec(got, "driver").Peak["DirectPoolMemory"]},
	} {
		if v, ok := m[tt.name]; !ok || int64(v) != tt.want {
			t.Errorf("/metrics %s: got %v (present %v), want %d", tt.name, v, ok, tt.want)
		}
	}
	if _, ok := m[fmt.Sprintf(`spark_executor_peak_memory_bytes{app_id=%q,executor_id="0",host="node1",kind="MinorGCCount"}`, app)]; ok {
		t.Error("/metrics: a GC count exported as peak memory")
	}

	// Over OTLP to serve.
	peer := &otlpPeer{}
	ps := httptest.NewServer(peer)
	defer ps.Close()
	ctx := context.Background()
	o, err := NewOTLP(ctx, a, ps.URL, ProtocolHTTP, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	peer.mu.Lock()
	defer peer.mu.Unlock()
	samples := map[string]float64{}
	for _, req := range peer.reqs {
		for _, smp := range otlpin.Samples(&metricspb.MetricsData{ResourceMetrics: req.ResourceMetrics}) {
			if smp.AppID == app {
				samples[smp.ExecutorID+" "+smp.Metric] = smp.Value
			}
		}
	}
	for k, want := range map[string]int64{
		"0 spark.executor.storage_memory.used{on_heap}":     x.Storage.UsedOnHeap,
		"0 spark.executor.storage_memory.limit{on_heap}":    x.Storage.TotalOnHeap,
		"0 spark.executor.memory.peak{JVMHeapMemory}":       x.Peak["JVMHeapMemory"],
		"0 spark.executor.memory.peak{OnHeapStorageMemory}": x.Peak["OnHeapStorageMemory"],
	} {
		if v, ok := samples[k]; !ok || int64(v) != want {
			t.Errorf("serve's sample %s: got %v (present %v), want %d", k, v, ok, want)
		}
	}
}

// TestSparkRESTNeverBlocks: a driver whose UI does not answer holds no
// cycle up — cycles go on while its request hangs — and a driver that
// answers with an error is counted, not reported.
func TestSparkRESTNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer close(release)
	a := fixtureAgent(t, restDriverNode(t, hung.Listener.Addr().String()), Config{SparkREST: time.Millisecond, SparkRESTTimeout: time.Hour})
	for range 3 {
		if p := byPID(sample(t, a))[200]; p.Spark != nil {
			t.Fatalf("got a REST answer from a hung driver: %+v", p.Spark)
		}
	}

	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer broken.Close()
	// One poll an hour: the second cycle starts none.
	b := fixtureAgent(t, restDriverNode(t, broken.Listener.Addr().String()), Config{SparkREST: time.Hour})
	sample(t, b)
	b.rest.wait()
	s := sample(t, b)
	if n := b.Stats().Errors["spark_rest_discovery"]; n != 1 || byPID(s)[200].Spark != nil {
		t.Errorf("got %d failed discoveries and answer %+v, want one and no answer", n, byPID(s)[200].Spark)
	}
}

// TestSparkRESTOff: with Config.SparkREST zero no driver is polled.
func TestSparkRESTOff(t *testing.T) {
	var polled atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { polled.Store(true) }))
	defer srv.Close()
	a := fixtureAgent(t, restDriverNode(t, srv.Listener.Addr().String()), Config{})
	sample(t, a)
	sample(t, a)
	if a.rest != nil || polled.Load() {
		t.Errorf("got poller %v, server polled %v; want neither", a.rest != nil, polled.Load())
	}
}

// FuzzParseListeners: any /proc/net/tcp{,6} content gives listeners or an
// error, never a panic; every listener has a valid address.
func FuzzParseListeners(f *testing.F) {
	f.Add("  sl  local_address rem_address   st\n   0: 0100007F:0FC8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4711 1\n")
	f.Add("h\n   0: 0000000000000000FFFF00000100007F:1F91 00000000000000000000000000000000:0000 0A 0 0 0 1000 0 5002 1\n")
	f.Add("h\n   0: 0100007F:0FC8 0100007F:D2F0 01 0 0 0 1000 0 4713\n")
	f.Fuzz(func(t *testing.T, in string) {
		ls, _ := parseListeners(strings.NewReader(in))
		for _, l := range ls {
			if !l.addr.IsValid() {
				t.Errorf("listener %+v: invalid address", l)
			}
		}
		localAddrs(strings.NewReader(in))
	})
}

// TestReach: where the agent connects for a driver's listening socket —
// loopback in its own network namespace; in a pod's, the pod's address for
// a socket on every address and nothing for the pod's loopback.
func TestReach(t *testing.T) {
	root := t.TempDir()
	link := func(pid, target string) {
		dir := filepath.Join(root, pid, "ns")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "net")); err != nil {
			t.Fatal(err)
		}
	}
	link("self", "net:[4026531840]")
	link("10", "net:[4026531840]")
	link("20", "net:[4026532999]")
	if err := os.MkdirAll(filepath.Join(root, "20", "net"), 0o755); err != nil {
		t.Fatal(err)
	}
	fib := "Local:\n  +-- 0.0.0.0/0 3 0 5\n        |-- 10.244.1.17\n           /32 host LOCAL\n        |-- 127.0.0.1\n           /32 host LOCAL\n"
	if err := os.WriteFile(filepath.Join(root, "20", "net", "fib_trie"), []byte(fib), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newSparkREST(root, time.Minute, time.Second)
	for _, tt := range []struct {
		pid        int
		addr, want string
	}{
		{10, "0.0.0.0", "127.0.0.1"},
		{10, "::", "127.0.0.1"},
		{10, "127.0.0.1", "127.0.0.1"},
		{10, "10.0.0.9", "10.0.0.9"},
		{20, "0.0.0.0", "10.244.1.17"},
		{20, "127.0.0.1", ""},
		{20, "10.244.1.17", "10.244.1.17"},
		{30, "0.0.0.0", "127.0.0.1"}, // unreadable namespace: taken as the agent's
	} {
		if got := r.reach(tt.pid, netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("reach(pid %d, %s): got %q, want %q", tt.pid, tt.addr, got, tt.want)
		}
	}
}

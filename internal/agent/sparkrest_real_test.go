package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRealSparkExecutorMemory: a real Spark 3.5 application whose
// executor caches a DataFrame; the agent finds the driver's UI port from
// its listening sockets (the job sets no spark.ui.port), reads the
// executors' memory from its REST API, and reports what the driver itself
// answers — storage memory used above 0 while the DataFrame is cached, 0
// once it is unpersisted — in the snapshot and in /metrics; the executors'
// peak memory metrics follow their heartbeats. On every Spark line (3.5
// and 4); -update records the 3.5 driver's answers as testdata/sparkrest.
func TestRealSparkExecutorMemory(t *testing.T) {
	for i, line := range sparktest.SparkLines(t) {
		t.Run(line.Version, func(t *testing.T) { realSparkExecutorMemory(t, line, i == 0) })
	}
}

func realSparkExecutorMemory(t *testing.T, line sparktest.SparkLine, record bool) {
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 1, MemoryPerWorker: "1g"})
	job, app := sparktest.StartCachingDriver(t, line, c, "")
	cached := time.Now()

	a := realAgent(t, Config{SparkREST: time.Millisecond})
	// read samples twice (a poll runs beside the cycle that starts it) and
	// returns the driver's REST view of app.
	read := func() *SparkApp {
		t.Helper()
		sample(t, a)
		a.rest.wait()
		for _, p := range sample(t, a).Processes {
			if p.Role == RoleDriver && p.Spark != nil && p.Spark.AppID == app {
				return p.Spark
			}
		}
		return nil
	}
	// Spark's REST API starts (Jersey) on its first request, which can
	// take longer than the agent waits: the agent tries again next cycle.
	got := read()
	for deadline := time.Now().Add(30 * time.Second); got == nil && time.Now().Before(deadline); {
		time.Sleep(time.Second)
		got = read()
	}
	if got == nil {
		t.Fatalf("no driver with a REST answer for %s; errors %v", app, a.Stats().Errors)
	}
	t.Logf("driver's REST found at %s; agent errors so far %v", got.URL, a.Stats().Errors)
	var want []SparkExecutor
	getJSON(t, got.URL+"/api/v1/applications/"+app+"/executors", &want)
	if *update && record {
		saveREST(t, got.URL, app)
	}
	used := storageUsed(t, got)
	if used <= 0 {
		t.Fatalf("executors' on-heap storage used: got %d, want > 0 while the DataFrame is cached: %+v", used, got.Executors)
	}
	if w := storageUsed(t, &SparkApp{Executors: want}); used != w {
		t.Errorf("executors' on-heap storage used: got %d, the driver's REST says %d", used, w)
	}
	byID := map[string]SparkExecutor{}
	for _, x := range got.Executors {
		byID[x.ID] = x
	}
	for _, w := range want {
		if g, ok := byID[w.ID]; !ok || g.MemoryUsed != w.MemoryUsed || g.MaxMemory != w.MaxMemory {
			t.Errorf("executor %s: got %+v, the driver says %+v", w.ID, g, w)
		}
	}
	metric := fmt.Sprintf(`spark_executor_storage_memory_used_bytes{app_id=%q,area="on_heap",executor_id="0",host=%q}`, app, a.cfg.Host)
	if v, ok := series(t, a)[metric]; !ok || v <= 0 {
		t.Errorf("/metrics: got %s = %v (present %v), want > 0", metric, v, ok)
	}

	// Peaks come with the executors' heartbeats (every 10s).
	deadline := time.Now().Add(40 * time.Second)
	for got.Executors == nil || peak(got, "0", "JVMHeapMemory") <= 0 {
		if time.Now().After(deadline) {
			t.Fatalf("executor 0's peak JVMHeapMemory still 0 after 40s: %+v", got.Executors)
		}
		time.Sleep(time.Second)
		got = read()
	}
	t.Logf("executor 0's peakMemoryMetrics %.1fs after the cache: %v", time.Since(cached).Seconds(), byExec(got, "0").Peak)
	for _, kind := range []string{"JVMHeapMemory", "OnHeapStorageMemory", "ProcessTreeJVMRSSMemory"} {
		if peak(got, "0", kind) <= 0 {
			t.Errorf("executor 0: peak %s: got %d, want > 0", kind, peak(got, "0", kind))
		}
	}

	// Unpersisted: the next poll reads what the driver reads, the
	// DataFrame's blocks gone (a broadcast's few KiB stay).
	if _, err := fmt.Fprintln(job.Stdin, "unpersist"); err != nil {
		t.Fatal(err)
	}
	for job.Lines.Scan() && job.Lines.Text() != "unpersisted" {
	}
	dropped := time.Now()
	// The blocking unpersist returns once the executors dropped the blocks;
	// their BlockUpdated events reach the driver's status store through its
	// listener bus afterwards (seen 35 MB still listed on a loaded CI
	// machine), so wait for the driver's own answer first, then compare.
	for deadline := time.Now().Add(20 * time.Second); ; {
		getJSON(t, got.URL+"/api/v1/applications/"+app+"/executors", &want)
		if storageUsed(t, &SparkApp{Executors: want}) <= used/10 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	driverSaw := time.Since(dropped)
	got = read()
	getJSON(t, got.URL+"/api/v1/applications/"+app+"/executors", &want)
	if after := storageUsed(t, got); after > used/10 || after != storageUsed(t, &SparkApp{Executors: want}) {
		t.Errorf("after unpersist: got on-heap storage used %d (cached: %d), the driver says %d; want the DataFrame's blocks gone",
			after, used, storageUsed(t, &SparkApp{Executors: want}))
	}
	t.Logf("unpersist listed by the driver %v and seen by the agent %v after it returned (poll interval aside)", driverSaw, time.Since(dropped))
}

func storageUsed(t *testing.T, app *SparkApp) int64 {
	t.Helper()
	if app == nil {
		return -1
	}
	var n int64
	for _, x := range app.Executors {
		if x.ID == "driver" {
			continue
		}
		if x.Storage == nil {
			t.Fatalf("executor %s: no memoryMetrics", x.ID)
		}
		n += x.Storage.UsedOnHeap
	}
	return n
}

func byExec(app *SparkApp, id string) SparkExecutor {
	for _, x := range app.Executors {
		if x.ID == id {
			return x
		}
	}
	return SparkExecutor{}
}

func peak(app *SparkApp, id, kind string) int64 { return byExec(app, id).Peak[kind] }

func getJSON(t *testing.T, url string, v any) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return body
}

// saveREST records the driver's answers as the fixture of the tests
// without Spark (testdata/sparkrest).
func saveREST(t *testing.T, base, app string) {
	t.Helper()
	var v any
	for name, path := range map[string]string{"applications.json": "/api/v1/applications", "executors.json": "/api/v1/applications/" + app + "/executors"} {
		body := getJSON(t, base+path, &v)
		if err := os.WriteFile(filepath.Join("testdata", "sparkrest", name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// series returns the agent's /metrics as series → value.
func series(t *testing.T, a *Agent) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for line := range strings.Lines(metricsText(t, a)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		var v float64
		fmt.Sscan(line[i+1:], &v)
		out[line[:i]] = v
	}
	return out
}

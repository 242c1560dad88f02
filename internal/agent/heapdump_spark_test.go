package agent

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestHeapDumpOfSparkExecutor: on a real Spark 3.5 cluster an executor's
// cache grows (a Python RDD kept in its memory store) until its old
// generation passes the executors' threshold; the agent — limited to that
// application, so that the node's other JVMs are left alone — dumps that
// executor once and never the driver, and the dump's summary on the event
// names Spark's memory store and holds in byte arrays at least what Spark's
// block manager says is cached.
func TestHeapDumpOfSparkExecutor(t *testing.T) {
	sparktest.Live(t)
	line := sparktest.SparkLines(t)[0]
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 1, CoresPerWorker: 1, MemoryPerWorker: "1g"})
	events := t.TempDir()
	prog, err := filepath.Abs("testdata/spark_cache_grow.py")
	if err != nil {
		t.Fatal(err)
	}
	conf := sparktest.DefaultConf(t, events)
	conf["spark.executor.memory"] = "512m"
	conf["spark.memory.fraction"] = "0.8"
	var facts struct {
		CachedMemSize int64  `json:"cachedMemSize"`
		CachedBlocks  int64  `json:"cachedBlocks"`
		StorageMax    int64  `json:"storageMax"`
		StorageUsed   int64  `json:"storageUsed"`
		AppID         string `json:"appId"`
	}
	held := c.Hold(t, sparktest.Submission{Program: prog, Args: []string{"0.6"}, Conf: conf, EventLogDir: events,
		Timeout: 6 * time.Minute}, &facts)
	t.Logf("Spark: %d blocks cached, %d bytes; storage memory %d of %d bytes in use", facts.CachedBlocks, facts.CachedMemSize,
		facts.StorageUsed, facts.StorageMax)
	pids := c.ExecutorPIDs()
	if len(pids) != 1 {
		t.Fatalf("got executor pids %v, want one", pids)
	}
	exec := pids[0]

	// The threshold an executor of this cache passes: 30 % of its old
	// generation (≈ 120 MB of a 512 MB heap are cached, with what the
	// caching left for the collector). Checked first, so that a dump below
	// proves the rule, not a lucky sample.
	const at = 0.3
	p := waitFor(t, realAgent(t, Config{}), exec, "the executor's JVM counters", func(p Process) bool { return p.JVM != nil })
	if p.Role != RoleExecutor || p.AppID != facts.AppID {
		t.Fatalf("executor pid %d read as %s of %q, want an executor of %s", exec, p.Role, p.AppID, facts.AppID)
	}
	used, max := heapFill(p.JVM)
	if float64(used) < at*float64(max) {
		t.Fatalf("the executor's old generation holds %d of %d bytes, below the test's threshold %.2f", used, max, at)
	}

	// An agent limited to another application dumps nothing of it.
	other := realAgent(t, Config{HeapDumpAtRole: map[Role]float64{RoleExecutor: at, RoleDriver: 0}, HeapDumpDir: t.TempDir(),
		HeapDumpApps: []string{"app-not-this-one*"}})
	for range 3 {
		for _, ev := range sample(t, other).Events {
			if ev.PID == exec {
				t.Fatalf("an agent limited to other applications acted on this one: %+v", ev)
			}
		}
	}

	a := realAgent(t, Config{HeapDumpAtRole: map[Role]float64{RoleExecutor: at, RoleDriver: 0}, HeapDumpDir: t.TempDir(),
		HeapDumpApps: []string{facts.AppID}})
	evs, _ := dumpEvents(t, a, exec)
	if len(evs) != 1 || evs[0].HeapDump == "" {
		t.Fatalf("got events %+v, want one heap dump of the executor", evs)
	}
	ev := evs[0]
	if ev.AppID != facts.AppID || ev.Role != RoleExecutor || ev.ExecutorID == "" {
		t.Errorf("dump event names %s %s %q, want executor of %s", ev.Role, ev.AppID, ev.ExecutorID, facts.AppID)
	}
	var store int64
	for _, n := range ev.HeapNotes {
		t.Logf("note %s: %d instances, %d bytes", n.Class, n.Instances, n.Bytes)
		if n.Class == "org.apache.spark.storage.memory.*" {
			store = n.Instances
		}
	}
	// One entry per cached block, and the memory store itself.
	if store < facts.CachedBlocks {
		t.Errorf("the dump's notes count %d memory-store objects, want at least Spark's %d cached blocks", store, facts.CachedBlocks)
	}
	if len(ev.HeapTop) == 0 || ev.HeapTop[0].Class != "[B" || ev.HeapTop[0].Bytes < facts.CachedMemSize {
		t.Errorf("heap top %+v: want byte arrays first, holding at least the %d bytes Spark has cached", ev.HeapTop, facts.CachedMemSize)
	}
	for _, cls := range ev.HeapTop {
		t.Logf("top %s: %d bytes", cls.Class, cls.Bytes)
	}
	if !strings.Contains(ev.Detail, "heap") {
		t.Errorf("event detail %q does not say how full the heap was", ev.Detail)
	}
	held.Release()
}

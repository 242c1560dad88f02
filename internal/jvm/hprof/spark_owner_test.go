package hprof

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestOwnersOnSparkExecutor dumps the heap of a real Spark executor that
// holds a cached DataFrame and a broadcast join's build side, and checks
// the Spark-owner grouping against what Spark's block manager counts.
func TestOwnersOnSparkExecutor(t *testing.T) {
	sparktest.Live(t)
	lines := sparktest.SparkLines(t)
	line := lines[len(lines)-1]
	jcmd := sparktest.Program(t, "jcmd")
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 1, CoresPerWorker: 2, MemoryPerWorker: "1g"})
	dir := t.TempDir()
	prog, err := filepath.Abs("testdata/spark_cache.py")
	if err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "events")
	if err := os.Mkdir(events, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := sparktest.DefaultConf(t, events)
	conf["spark.executor.memory"] = "768m"
	var facts struct {
		CachedMemSize int64 `json:"cachedMemSize"`
	}
	held := c.Hold(t, sparktest.Submission{Program: prog, Conf: conf, EventLogDir: events, Timeout: 6 * time.Minute}, &facts)
	pids := c.ExecutorPIDs()
	if len(pids) != 1 {
		t.Fatalf("got executor pids %v, want one", pids)
	}
	dump := filepath.Join(dir, "executor.hprof")
	if out, err := exec.Command(jcmd, strconv.Itoa(pids[0]), "GC.heap_dump", dump).CombinedOutput(); err != nil {
		t.Fatalf("jcmd GC.heap_dump: %v\n%s", err, out)
	}
	_, r, err := ReadFileRetained(context.Background(), dump, RetainedOptions{Top: 10})
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]Owner{}
	for _, o := range r.Owners {
		owners[o.Owner] = o
		t.Logf("owner %-26s %3d objects retain %d bytes", o.Owner, o.Objects, o.Retained)
	}
	for _, d := range r.Dominators[:3] {
		t.Logf("dominator %s retains %d", d.Class, d.Retained)
	}
	t.Logf("block manager: cached DataFrame memSize %d bytes", facts.CachedMemSize)
	cached := owners["cached blocks"]
	// The memory store holds the DataFrame's cached batches (memSize, Spark's
	// own estimate of their size) and the broadcast's pieces and value.
	if facts.CachedMemSize <= 0 || cached.Retained < facts.CachedMemSize*9/10 || cached.Retained > facts.CachedMemSize*3 {
		t.Errorf("cached blocks retain %d bytes, want at least 90%% of the block manager's %d for the cached DataFrame (and under 3x)",
			cached.Retained, facts.CachedMemSize)
	}
	// The broadcast join's build side: 50,000 rows of two longs, at least.
	if join := owners["join build sides"]; join.Retained < 50_000*16 {
		t.Errorf("join build sides retain %d bytes, want the broadcast hash relation of 50,000 rows (at least %d)", join.Retained, 50_000*16)
	}
	if owners[threadStacks].Objects == 0 {
		t.Errorf("no thread-stack owner on an executor with running threads")
	}
	held.Release()
}

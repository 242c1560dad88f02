package sparktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cachingDriver is the PySpark program StartCachingDriver runs. Its
// arguments: the master URL and, optionally, an event-log directory.
const cachingDriver = `import sys
from pyspark.sql import SparkSession
b = (SparkSession.builder.master(sys.argv[1]).appName("caching-driver")
     .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
     .config("spark.executor.memory", "512m").config("spark.driver.memory", "512m")
     .config("spark.ui.showConsoleProgress", "false")
     .config("spark.executor.processTreeMetrics.enabled", "true"))
if len(sys.argv) > 2:
    b = b.config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", sys.argv[2])
s = b.getOrCreate()
df = s.range(0, 3000000, numPartitions=4).selectExpr("id", "cast(id as string) as s").cache()
df.count()
print("ready", s.sparkContext.applicationId, flush=True)
for line in sys.stdin:
    if line.strip() == "unpersist":
        df.unpersist(blocking=True)
        print("unpersisted", flush=True)
s.stop()
`

// StartCachingDriver runs a PySpark driver on c whose executor caches a
// DataFrame (3 M rows of a number and its text, in storage memory), and
// returns once it is cached, with the application's id. Told "unpersist"
// on its stdin, the driver drops the cache and prints "unpersisted". With
// eventLogDir, the application writes its event log there.
func StartCachingDriver(t testing.TB, line SparkLine, c *Cluster, eventLogDir string) (job *JVM, appID string) {
	t.Helper()
	Live(t)
	prog := filepath.Join(t.TempDir(), "caching_driver.py")
	if err := os.WriteFile(prog, []byte(cachingDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := []string{line.Python, prog, c.MasterURL}
	if eventLogDir != "" {
		argv = append(argv, eventLogDir)
	}
	job = StartJVM(t, argv, "SPARK_HOME="+line.Home, "PYSPARK_PYTHON="+line.Python)
	for job.Lines.Scan() {
		if id, ok := strings.CutPrefix(job.Lines.Text(), "ready "); ok {
			return job, id
		}
	}
	t.Fatalf("the caching driver exited before caching its DataFrame; cluster logs:\n%s", c.Logs())
	return nil, ""
}

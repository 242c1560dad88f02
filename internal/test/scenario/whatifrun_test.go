package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// whatIfExecutors are the executor counts (of one core each) the what-if
// workload runs with.
var whatIfExecutors = []int{1, 2, 4}

// runWhatIf runs the what-if workload once per count of whatIfExecutors on
// one real cluster of four one-core Workers and returns each run's event
// log by executor count. This file's content is part of the runs' key
// (whatIfKey): what it submits decides what the logs hold.
func runWhatIf(t *testing.T, line sparktest.SparkLine) map[int]string {
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 4, CoresPerWorker: 1, MemoryPerWorker: "1g"})
	program, err := filepath.Abs(filepath.Join(whatIfDir, "workload.py"))
	if err != nil {
		t.Fatal(err)
	}
	logs := map[int]string{}
	for _, executors := range whatIfExecutors {
		logDir := t.TempDir()
		// SPARKDX_WHATIF_LOGS=DIR keeps the three logs for a look.
		if keep := os.Getenv("SPARKDX_WHATIF_LOGS"); keep != "" {
			logDir = filepath.Join(keep, strconv.Itoa(executors))
			os.MkdirAll(logDir, 0o755)
		}
		conf := sparktest.DefaultConf(t, logDir)
		conf["spark.cores.max"] = strconv.Itoa(executors)
		conf["spark.executor.cores"] = "1"
		// Compressed as Spark's own codec writes them: the logs are committed.
		conf["spark.eventLog.compress"] = "true"
		conf["spark.eventLog.compression.codec"] = "zstd"
		res, err := c.Submit(context.Background(), sparktest.Submission{Program: program, Conf: conf, EventLogDir: logDir})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%d executors: exit %d, %v\n%s\n%s", executors, res.ExitCode, err, res.Output, c.Logs())
		}
		path, err := onlyLog(logDir)
		if err != nil {
			t.Fatal(err)
		}
		logs[executors] = path
	}
	c.Stop()
	return logs
}

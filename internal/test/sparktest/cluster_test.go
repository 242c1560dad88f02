package sparktest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClusterRunsPySpark submits a two-stage PySpark job to a real
// standalone cluster of each Spark line and checks the event log it
// wrote and that no executor JVM outlives the cluster.
func TestClusterRunsPySpark(t *testing.T) {
	for _, line := range SparkLines(t) {
		t.Run(line.Version, func(t *testing.T) {
			var dir string
			t.Run("run", func(t *testing.T) {
				c := StartCluster(t, line, ClusterOptions{Workers: 1, CoresPerWorker: 2})
				dir = c.Dir
				logs := t.TempDir()
				conf := DefaultConf(t, logs)
				res, err := c.Submit(context.Background(), Submission{Program: filepath.Join("testdata", "count.py"), Conf: conf})
				if err != nil || res.ExitCode != 0 || !strings.Contains(res.Output, "keys 10") {
					t.Fatalf("spark-submit: exit %d, %v\n%s\n%s", res.ExitCode, err, res.Output, c.Logs())
				}
				entries, _ := os.ReadDir(logs)
				if len(entries) != 1 {
					t.Fatalf("event log dir holds %d entries, want 1", len(entries))
				}
				b, err := os.ReadFile(filepath.Join(logs, entries[0].Name()))
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range []string{"SparkListenerExecutorAdded", "SparkListenerTaskEnd", "SparkListenerApplicationEnd", `"Spark Version":"` + line.Version + `"`} {
					if !strings.Contains(string(b), ev) {
						t.Errorf("event log lacks %s", ev)
					}
				}
			})
			if left := pidsWith(dir); len(left) > 0 {
				t.Errorf("JVMs left after the cluster stopped: %v", left)
			}
		})
	}
}

package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// TestLive runs every scenario on a real standalone cluster of every Spark
// line and checks its expectations on the log Spark writes. With -update it
// replaces the committed logs (go test ./internal/scenario -run TestLive
// -update). SPARKDX_SCENARIOS=a,b runs only those.
func TestLive(t *testing.T) {
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("SPARKDX_SCENARIOS"), ",") {
		if n != "" {
			only[n] = true
		}
	}
	all := loadAll(t)
	for _, line := range sparktest.SparkLines(t) {
		t.Run(line.Version, func(t *testing.T) {
			// Scenarios that change nothing in the cluster share one per
			// shape, which saves starting a Master and Workers each time.
			shared := map[Cluster]*sparktest.Cluster{}
			for _, s := range all {
				if len(only) > 0 && !only[s.Name] {
					continue
				}
				var c *sparktest.Cluster
				if s.LateWorkerSeconds == 0 && s.KillExecutorAtMarks == 0 && s.Throttle == nil {
					if shared[s.Cluster] == nil {
						shared[s.Cluster] = startCluster(t, line, s)
					}
					c = shared[s.Cluster]
				}
				t.Run(s.Name, func(t *testing.T) {
					if c == nil {
						c = startCluster(t, line, s)
					}
					live(t, line, c, s)
				})
			}
		})
	}
}

func startCluster(t *testing.T, line sparktest.SparkLine, s *Scenario) *sparktest.Cluster {
	return sparktest.StartCluster(t, line, sparktest.ClusterOptions{
		Workers: s.Cluster.Workers, CoresPerWorker: s.Cluster.CoresPerWorker, MemoryPerWorker: s.Cluster.MemoryPerWorker})
}

func live(t *testing.T, line sparktest.SparkLine, c *sparktest.Cluster, s *Scenario) {
	logDir := t.TempDir()
	path, err := s.Run(context.Background(), c, sparktest.DefaultConf(t, logDir), logDir)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Logs())
	}
	d, err := Diagnose(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	report(t, s, d)
	if *update {
		dst := s.LogDir(line.Version)
		if err := os.RemoveAll(dst); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(path)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if s.Agent {
			b, err := os.ReadFile(AgentFile(path))
			if err != nil {
				t.Fatal(err)
			}
			out := AgentFile(filepath.Join(dst, filepath.Base(path)))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

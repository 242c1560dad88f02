package main

import (
	"os"
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestStandaloneCluster runs the tests that need a standalone cluster of
// one Worker on one cluster per Spark line — a Master and a Worker of two
// cores and 1 GiB, started once per line and stopped before the next
// line's starts — instead of a Master and a Worker each (a cluster's start
// is most of a minute of JVM starts on a loaded machine). Its subtests, per
// line:
//   - ServeLiveSpark (every line): serveLiveSpark;
//   - SparkExecutorMemoryEverywhere (the oldest line): sparkExecutorMemory;
//   - ServeSparkSinks (4.3.0, or $SPARKDX_SINKS_SPARK): serveSparkSinks.
//
// Each submits its own application with its own event-log directory; the
// one before it has ended (its driver exited, its executor released) when
// the next starts. A test that needs another topology starts its own
// cluster (TestServeLiveResourceWait: no Worker at first).
func TestStandaloneCluster(t *testing.T) {
	lines := sparktest.SparkLines(t)
	bin := buildSparkdx(t)
	sinks := "4.3.0"
	if v := os.Getenv("SPARKDX_SINKS_SPARK"); v != "" {
		sinks = v
	}
	if !slices.ContainsFunc(lines, func(l sparktest.SparkLine) bool { return l.Version == sinks }) {
		t.Fatalf("SPARKDX_SINKS_SPARK: no pinned Spark line %s (.ci/spark)", sinks)
	}
	for i, line := range lines {
		t.Run(line.Version, func(t *testing.T) {
			c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 1, CoresPerWorker: 2, MemoryPerWorker: "1g"})
			t.Run("ServeLiveSpark", func(t *testing.T) { serveLiveSpark(t, bin, c) })
			if i == 0 {
				t.Run("SparkExecutorMemoryEverywhere", func(t *testing.T) { sparkExecutorMemory(t, bin, c) })
			}
			if line.Version == sinks {
				t.Run("ServeSparkSinks", func(t *testing.T) { serveSparkSinks(t, bin, c) })
			}
		})
	}
}

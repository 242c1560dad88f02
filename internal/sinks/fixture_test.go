package sinks

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/server/otlpin"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixture is the lines a real Spark application's sinks sent, of the
// Spark line recorded in dir (testdata/spark-*/README.md say how).
func fixture(t testing.TB, dir, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// readFixture parses and maps a fixture's lines into one batch, failing
// on any line that is not Spark's, and counts them by outcome.
func readFixture(t *testing.T, dir, name, sink string, parse func([]byte) (Point, error)) (*batch, map[string]int) {
	t.Helper()
	b := newBatch(sink, 1<<20)
	n := map[string]int{}
	for _, l := range fixture(t, dir, name) {
		p, err := parse(l)
		switch {
		case errors.Is(err, errSource):
			n[outcomeOther]++
			continue
		case err != nil:
			t.Errorf("%s: %q: %v", name, l, err)
			continue
		}
		m, ok := mapPoint(p)
		if !ok {
			n[outcomeUnmapped]++
			continue
		}
		n[outcomeMapped]++
		b.add(p, m)
	}
	return b, n
}

// wantSeries are the samples the driver and executor 0 each have: the
// agent's names (serve sums the pools by type, as it does the agent's)
// and the ExecutorMetrics source's current values.
var wantSeries = []string{
	"jvm.memory.used{heap}", "jvm.memory.used{non_heap}", "jvm.memory.used{old}", "jvm.memory.committed{heap}",
	"jvm.memory.limit{old}", "jvm.memory.used{code_cache}", "jvm.gc.count", "jvm.gc.duration", "jvm.buffer.memory.used{direct}",
	"spark.executor.memory.usage{JVMHeapMemory}", "spark.executor.memory.usage{OnHeapExecutionMemory}",
	"spark.executor.memory.usage{OnHeapStorageMemory}", "spark.executor.memory.usage{ProcessTreeJVMRSSMemory}",
	"spark.executor.gc.count{minor}", "spark.executor.gc.duration{total}",
}

// sparkLines are the Spark lines recorded under testdata, as directory
// names (spark-3.5.9, spark-4.3.0).
func sparkLines(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join("testdata", "spark-*"))
	if len(dirs) == 0 {
		t.Fatal("no testdata/spark-* fixture")
	}
	for i := range dirs {
		dirs[i] = filepath.Base(dirs[i])
	}
	return dirs
}

func TestSparkGraphiteFixture(t *testing.T) {
	for _, dir := range sparkLines(t) {
		t.Run(dir, func(t *testing.T) {
			b, n := readFixture(t, dir, "graphite.txt", sinkGraphite, ParseGraphite)
			checkFixture(t, dir, b, n, "graphite")
		})
	}
}

func TestSparkStatsdFixture(t *testing.T) {
	for _, dir := range sparkLines(t) {
		t.Run(dir, func(t *testing.T) {
			b, n := readFixture(t, dir, "statsd.txt", sinkStatsd, func(l []byte) (Point, error) { return ParseStatsd(l, 1764280000000) })
			checkFixture(t, dir, b, n, "statsd")
		})
	}
}

func checkFixture(t *testing.T, dir string, b *batch, n map[string]int, sink string) {
	t.Helper()
	t.Logf("%s lines by outcome: %v", sink, n)
	md := b.metricsData()
	samples := otlpin.Samples(md)
	got := map[string]map[string]bool{}
	for _, s := range samples {
		if got[s.ExecutorID] == nil {
			got[s.ExecutorID] = map[string]bool{}
		}
		got[s.ExecutorID][s.Metric] = true
	}
	for _, exec := range []string{"driver", "0"} {
		for _, m := range wantSeries {
			if !got[exec][m] {
				t.Errorf("%s: executor %s has no %s sample", sink, exec, m)
			}
		}
	}
	// The Delta samples table keeps each pool and the process's columns.
	var codeHeap bool
	for _, r := range delta.OTLPSampleRows(md, time.Unix(0, 0)) {
		if r.Metric == "jvm.memory.used" && r.ExecutorID == "0" && r.Role == "executor" && r.AppID != "" &&
			strings.HasPrefix(r.Attributes["jvm.memory.pool.name"], "CodeHeap '") && r.Attributes["sparkdx.sink"] == sink {
			codeHeap = true
		}
	}
	if !codeHeap {
		t.Errorf("%s: no Delta row of executor 0's code heap pools", sink)
	}
	golden(t, filepath.Join("testdata", dir, sink+".golden"), samplesText(samples))
}

// samplesText is the samples one per line, as a reviewer reads them.
func samplesText(xs []store.Sample) []byte {
	var w bytes.Buffer
	for _, s := range xs {
		fmt.Fprintf(&w, "%s %s %g\n", s.ExecutorID, s.Metric, s.Value)
	}
	return w.Bytes()
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\ngot:\n%s", path, got)
	}
}

// TestHeapPoolsSumToHeap: the heap pools of one Graphite report, summed
// as serve sums them, come to the report's own jvm.heap.used: reading the
// pools instead of the total loses nothing. JMX reads the total and the
// pools at slightly different instants, so they agree within 10 %.
func TestHeapPoolsSumToHeap(t *testing.T) {
	for _, dir := range sparkLines(t) {
		t.Run(dir, func(t *testing.T) { heapPoolsSumToHeap(t, dir) })
	}
}

func heapPoolsSumToHeap(t *testing.T, dir string) {
	b, _ := readFixture(t, dir, "graphite.txt", sinkGraphite, ParseGraphite)
	heap := map[string]float64{}
	for _, l := range fixture(t, dir, "graphite.txt") {
		if p, err := ParseGraphite(l); err == nil && p.Source == "jvm" && p.Metric == "heap.used" {
			heap[p.Executor] = p.Value
		}
	}
	sums := map[string]float64{}
	for _, s := range otlpin.Samples(b.metricsData()) {
		if s.Metric == "jvm.memory.used{heap}" {
			sums[s.ExecutorID] = s.Value
		}
	}
	for _, exec := range []string{"driver", "0"} {
		if h, s := heap[exec], sums[exec]; h <= 0 || s < 0.9*h || s > 1.1*h {
			t.Errorf("executor %s: heap pools sum to %.0f, jvm.heap.used %.0f; want within 10%%", exec, s, h)
		}
	}
}

// BenchmarkParseGraphite: lines/s of parsing and mapping Spark's own
// Graphite report.
func BenchmarkParseGraphite(b *testing.B) {
	lines := fixture(b, "spark-4.3.0", "graphite.txt")
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if p, err := ParseGraphite(l); err == nil {
				mapPoint(p)
			}
		}
	}
	b.ReportMetric(float64(len(lines)*b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkReceiveGraphite: a whole report through the receiver's line
// splitting, parsing, mapping and batching into OTLP, as serve takes it.
func BenchmarkReceiveGraphite(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "spark-4.3.0", "graphite.txt"))
	if err != nil {
		b.Fatal(err)
	}
	r := &Receiver{cfg: Config{MaxLineBytes: 1024}, stats: newStats(), latest: newLatest(256, 20_000, time.Hour)}
	r.cfg.defaults()
	nLines := bytes.Count(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		bt := newBatch(sinkGraphite, r.cfg.MaxBatch)
		lr := lineReader{max: r.cfg.MaxLineBytes}
		lr.feed(data, func(l []byte) {
			if p, err := ParseGraphite(l); err == nil {
				r.take(b.Context(), bt, p)
			}
		})
		r.flush(b.Context(), bt)
	}
	b.ReportMetric(float64(nLines*b.N)/b.Elapsed().Seconds(), "lines/s")
}

package sinks

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// seedLines adds the captured Spark lines of a fixture as seeds.
func seedLines(f *testing.F, name string) {
	b, err := os.ReadFile(filepath.Join("testdata", "spark-4.3.0", name))
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 0; sc.Scan() && n < 64; n++ {
		f.Add(append([]byte(nil), sc.Bytes()...))
	}
}

// FuzzGraphiteLine: no line crashes the parser, the mapping or the
// batch's OTLP, and what parses has a Spark layout's parts.
func FuzzGraphiteLine(f *testing.F) {
	seedLines(f, "graphite.txt")
	f.Add([]byte("a.0.jvm.pools.x.used -1 1"))
	f.Add([]byte("a.b.c.0.executor.cpuTime.count 1e308 99999999999"))
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := ParseGraphite(line)
		if err != nil {
			return
		}
		check(t, p)
	})
}

// FuzzStatsdLine: the same for StatsD datagrams, split as the receiver
// splits them.
func FuzzStatsdLine(f *testing.F) {
	seedLines(f, "statsd.txt")
	f.Add([]byte("a.0.jvm.direct.used:1|g|@0.1\n\n:|"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, line := range bytes.Split(data, []byte("\n")) {
			p, err := ParseStatsd(line, 1)
			if err != nil {
				continue
			}
			check(t, p)
		}
	})
}

// FuzzLineReader: any split of a stream into reads gives the same lines,
// none longer than the bound.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a 1 2\nbb 3 4\n"), uint8(3))
	f.Add([]byte("0123456789012345678901234567890\nx\n"), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		const max = 16
		whole, pieces := lines(data, len(data)+1, max), lines(data, int(cut)%8+1, max)
		if whole != pieces {
			t.Errorf("read whole %q, in pieces %q", whole, pieces)
		}
	})
}

func lines(data []byte, step, max int) string {
	lr := lineReader{max: max}
	var out bytes.Buffer
	for i := 0; i < len(data); i += step {
		lr.feed(data[i:min(i+step, len(data))], func(l []byte) {
			if len(l) > max {
				out.WriteString("TOO LONG")
			}
			out.Write(l)
			out.WriteByte('|')
		})
	}
	return out.String()
}

func check(t *testing.T, p Point) {
	if !appID(p.App) || !executorID(p.Executor) || !sources[p.Source] || p.Metric == "" {
		t.Fatalf("parsed %+v: not a Spark layout's parts", p)
	}
	m, ok := mapPoint(p)
	if !ok {
		return
	}
	b := newBatch(sinkGraphite, 4)
	b.add(p, m)
	if md := b.metricsData(); len(md.ResourceMetrics) != 1 {
		t.Fatalf("one point gave %d resources", len(md.ResourceMetrics))
	}
}

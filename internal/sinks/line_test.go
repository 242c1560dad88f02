package sinks

import (
	"errors"
	"strings"
	"testing"
)

func TestParseGraphite(t *testing.T) {
	app := "app-20261127220101-0000"
	for _, c := range []struct {
		name, line string
		want       Point
		err        error
	}{
		{"executor gauge", app + ".1.jvm.heap.used 123456 1764280000",
			Point{App: app, Executor: "1", Source: "jvm", Metric: "heap.used", Value: 123456, TimeMs: 1764280000000}, nil},
		{"driver double", app + ".driver.ExecutorMetrics.JVMHeapMemory 1.50 1764280000",
			Point{App: app, Executor: "driver", Source: "ExecutorMetrics", Metric: "JVMHeapMemory", Value: 1.5, TimeMs: 1764280000000}, nil},
		{"dotted prefix", "team.a." + app + ".0.jvm.pools.G1-Old-Gen.used 7 1764280000",
			Point{App: app, Executor: "0", Source: "jvm", Metric: "pools.G1-Old-Gen.used", Value: 7, TimeMs: 1764280000000}, nil},
		{"quoted pool", app + ".0.jvm.pools.CodeHeap-'non-nmethods'.used 7 1764280000",
			Point{App: app, Executor: "0", Source: "jvm", Metric: "pools.CodeHeap-'non-nmethods'.used", Value: 7, TimeMs: 1764280000000}, nil},
		{"carriage return", app + ".0.jvm.heap.used 1 1764280000\r",
			Point{App: app, Executor: "0", Source: "jvm", Metric: "heap.used", Value: 1, TimeMs: 1764280000000}, nil},
		{"comma decimal", app + ".0.jvm.heap.usage 0,25 1764280000",
			Point{App: app, Executor: "0", Source: "jvm", Metric: "heap.usage", Value: 0.25, TimeMs: 1764280000000}, nil},
		{"other source", app + ".driver.DAGScheduler.job.allJobs 3 1764280000", Point{}, errSource},
		{"custom namespace", "myjob.jvm.heap.used 3 1764280000", Point{}, errSource},
		{"no executor id", app + ".jvm.heap.used 3 1764280000", Point{}, errSource},
		{"two fields", app + ".0.jvm.heap.used 3", Point{}, errShape},
		{"four fields", app + ".0.jvm.heap.used 3 1764280000 x", Point{}, errShape},
		{"NaN", app + ".0.jvm.heap.used NaN 1764280000", Point{}, errValue},
		{"Inf", app + ".0.jvm.heap.used +Inf 1764280000", Point{}, errValue},
		{"milliseconds", app + ".0.jvm.heap.used 3 1764280000000000", Point{}, errTime},
		{"negative time", app + ".0.jvm.heap.used 3 -5", Point{}, errTime},
		{"quote in name", app + `.0.jvm.heap".used 3 1764280000`, Point{}, errName},
		{"non-ASCII name", app + ".0.jvm.héap.used 3 1764280000", Point{}, errName},
		{"empty metric segment", app + ".0.jvm..used 3 1764280000", Point{}, errName},
		{"long name", app + ".0.jvm." + strings.Repeat("x", MaxNameBytes) + " 3 1764280000", Point{}, errName},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseGraphite([]byte(c.line))
			if !errors.Is(err, c.err) || got != c.want {
				t.Errorf("ParseGraphite(%q) = %+v, %v; want %+v, %v", c.line, got, err, c.want, c.err)
			}
		})
	}
}

func TestParseStatsd(t *testing.T) {
	app := "spark-3f2a9c"
	const now = 1764280000123
	for _, c := range []struct {
		name, line string
		want       Point
		err        error
	}{
		{"gauge", app + ".0.jvm.pools.G1-Eden-Space.used:2097152|g",
			Point{App: app, Executor: "0", Source: "jvm", Metric: "pools.G1-Eden-Space.used", Value: 2097152, TimeMs: now}, nil},
		{"counter", app + ".0.executor.cpuTime:1500000000|c",
			Point{App: app, Executor: "0", Source: "executor", Metric: "cpuTime", Value: 1.5e9, TimeMs: now, Counter: true}, nil},
		{"sample rate", app + ".0.executor.cpuTime:3|c|@0.5",
			Point{App: app, Executor: "0", Source: "executor", Metric: "cpuTime", Value: 3, TimeMs: now, Counter: true}, nil},
		{"timer", app + ".driver.jvm.heap.usage:0.50|ms",
			Point{App: app, Executor: "driver", Source: "jvm", Metric: "heap.usage", Value: 0.5, TimeMs: now}, nil},
		{"no type", app + ".0.jvm.heap.used:3", Point{}, errShape},
		{"unknown type", app + ".0.jvm.heap.used:3|x", Point{}, errShape},
		{"no value", app + ".0.jvm.heap.used|g", Point{}, errShape},
		{"empty value", app + ".0.jvm.heap.used:|g", Point{}, errValue},
		{"NaN", app + ".0.jvm.heap.used:NaN|g", Point{}, errValue},
		{"space in name", app + ".0.jvm.heap used:1|g", Point{}, errName},
		{"no layout", "statsd.bad:1|g", Point{}, errSource},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStatsd([]byte(c.line), now)
			if !errors.Is(err, c.err) || got != c.want {
				t.Errorf("ParseStatsd(%q) = %+v, %v; want %+v, %v", c.line, got, err, c.want, c.err)
			}
		})
	}
}

func TestLineReader(t *testing.T) {
	for _, c := range []struct {
		name    string
		chunks  []string
		want    []string
		tooLong int
	}{
		{"whole lines", []string{"a 1 2\nb 3 4\n"}, []string{"a 1 2", "b 3 4"}, 0},
		{"split across reads", []string{"a 1", " 2\nb", " 3 4\n"}, []string{"a 1 2", "b 3 4"}, 0},
		{"long line in one read", []string{"0123456789ABC\nok\n"}, []string{"ok"}, 1},
		{"long line over reads", []string{"0123456", "789ABCDEF", "GHIJ\nok\n"}, []string{"ok"}, 1},
		{"long when joined", []string{"01234", "56789A\nok\n"}, []string{"ok"}, 1},
		{"partial at end", []string{"a 1 2\nb 3"}, []string{"a 1 2"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			lr := lineReader{max: 10}
			var got []string
			n := 0
			for _, ch := range c.chunks {
				n += lr.feed([]byte(ch), func(l []byte) { got = append(got, string(l)) })
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") || n != c.tooLong {
				t.Errorf("lines %q, too long %d; want %q, %d", got, n, c.want, c.tooLong)
			}
		})
	}
}

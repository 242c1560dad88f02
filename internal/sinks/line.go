package sinks

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
)

// MaxNameBytes bounds a metric name: Spark's longest (a JvmSource pool's
// "<app>.<executor>.jvm.pools.CodeHeap-'non-profiled-nmethods'.used-after-gc")
// is under 100 bytes; a longer one is not Spark's.
const MaxNameBytes = 512

// Point is one value of one metric of one Spark process, as its sink sent it.
type Point struct {
	App, Executor string // the name's namespace (the app id) and executor id ("driver" for the driver)
	Source        string // jvm, ExecutorMetrics, executor, ...
	Metric        string // the rest of the name: heap.used, pools.G1-Old-Gen.used, JVMHeapMemory
	Value         float64
	TimeMs        int64 // epoch ms: the line's timestamp (Graphite) or when it arrived (StatsD)
	Counter       bool  // a StatsD "|c": Spark sends a counter's running count
}

// Errors a line can have; the receiver counts lines by them.
var (
	errShape  = errors.New("not a metric line")
	errName   = errors.New("metric name not in Spark's layout")
	errValue  = errors.New("value not a finite number")
	errTime   = errors.New("timestamp not a Unix time")
	errSource = errors.New("no source sparkdx reads")
)

// ParseGraphite parses one GraphiteSink plaintext line,
// "<name> <value> <epoch seconds>", without its newline.
func ParseGraphite(line []byte) (Point, error) {
	line = bytes.TrimRight(line, "\r")
	f1 := bytes.IndexByte(line, ' ')
	if f1 <= 0 {
		return Point{}, errShape
	}
	rest := line[f1+1:]
	f2 := bytes.IndexByte(rest, ' ')
	if f2 <= 0 || bytes.IndexByte(rest[f2+1:], ' ') >= 0 {
		return Point{}, errShape
	}
	v, err := parseValue(rest[:f2])
	if err != nil {
		return Point{}, err
	}
	ts, err := strconv.ParseInt(string(rest[f2+1:]), 10, 64)
	// Graphite's timestamps are seconds; bounded so that ms fit int64
	// and a millisecond stamp sent by mistake is refused.
	if err != nil || ts <= 0 || ts > 1<<40 {
		return Point{}, errTime
	}
	p, err := splitName(line[:f1])
	if err != nil {
		return Point{}, err
	}
	p.Value, p.TimeMs = v, ts*1000
	return p, nil
}

// ParseStatsd parses one StatsdSink line, "<name>:<value>|<type>", stamping
// it nowMs: StatsD carries no time.
func ParseStatsd(line []byte, nowMs int64) (Point, error) {
	line = bytes.TrimRight(line, "\r")
	bar := bytes.IndexByte(line, '|')
	if bar <= 0 {
		return Point{}, errShape
	}
	typ := line[bar+1:]
	if at := bytes.IndexByte(typ, '|'); at >= 0 { // a sample rate, "|@0.1"
		typ = typ[:at]
	}
	colon := bytes.LastIndexByte(line[:bar], ':')
	if colon <= 0 {
		return Point{}, errShape
	}
	switch string(typ) {
	case "g", "c", "ms", "h", "s":
	default:
		return Point{}, errShape
	}
	v, err := parseValue(line[colon+1 : bar])
	if err != nil {
		return Point{}, err
	}
	p, err := splitName(line[:colon])
	if err != nil {
		return Point{}, err
	}
	p.Value, p.TimeMs, p.Counter = v, nowMs, string(typ) == "c"
	return p, nil
}

// parseValue reads a number as Spark formats it: a long, or "%2.2f" of a
// double — in the JVM's default locale, so "1,50" is read as 1.5.
func parseValue(b []byte) (float64, error) {
	s := string(b)
	if strings.IndexByte(s, ',') >= 0 && strings.IndexByte(s, '.') < 0 {
		s = strings.Replace(s, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errValue
	}
	return v, nil
}

// sources are the metric sources whose position in a name marks where
// the application id and executor id are, whatever prefix comes before.
var sources = map[string]bool{"jvm": true, "ExecutorMetrics": true, "executor": true}

// splitName finds "<app>.<executor>.<source>.<metric>" in a dotted name,
// after any prefix (spark.metrics.conf.*.sink.graphite.prefix may have
// dots of its own): the first known source preceded by an executor id.
// Its parts share one string: a line costs one allocation.
func splitName(name []byte) (Point, error) {
	if len(name) > MaxNameBytes || !validName(name) || name[0] == '.' || name[len(name)-1] == '.' ||
		bytes.Contains(name, []byte("..")) {
		return Point{}, errName
	}
	s := string(name)
	// The last three segments seen, as [start, end) of s.
	var seg [3][2]int
	n := 0
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '.')
		if end < 0 {
			break // the last segment is a metric's, never a source
		}
		end += start
		seg[0], seg[1], seg[2] = seg[1], seg[2], [2]int{start, end}
		n++
		part := func(i int) string { return s[seg[i][0]:seg[i][1]] }
		if n >= 3 && sources[part(2)] && executorID(part(1)) && appID(part(0)) {
			return Point{App: part(0), Executor: part(1), Source: part(2), Metric: s[end+1:]}, nil
		}
		start = end + 1
	}
	return Point{}, errSource
}

// validName allows printable ASCII but for the quote and backslash: what
// Spark's names hold (pool names keep their quotes: CodeHeap-'non-nmethods').
func validName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// executorID is "driver" or an executor's number.
func executorID(s string) bool {
	if s == "driver" {
		return true
	}
	if s == "" || len(s) > 10 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// appID accepts the ids Spark's cluster managers give (app-20261127…-0001,
// local-1764…, application_1764…_0001, spark-3f2a…) and bounds them.
func appID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}

package sparktest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fastjson"
)

// GrowLog writes to w a longer application built from the event log src:
// its application-level events once (start, environment, executors, end)
// and its jobs, stages, tasks and SQL executions copies times, each copy
// under new job, stage, task, RDD, accumulator and SQL execution ids and
// shifted in time past the one before, so that a replay sees copies times
// the work of one longer run rather than the same ids again. It is how
// the benchmarks get logs of hundreds of MB to a GB from a real one
// without committing them.
func GrowLog(w io.Writer, src []byte, copies int) error {
	var p fastjson.Parser
	g := grower{max: map[idKind]int64{}}
	// First pass: the largest id of each kind and the span of the body's
	// timestamps, which set the offsets of each copy.
	for ln := range bytes.Lines(src) {
		v, err := p.ParseBytes(ln)
		if err != nil || !isBody(string(v.GetStringBytes("Event"))) {
			continue
		}
		g.walk(v, "", false, nil)
	}
	span := g.lastTime - g.firstTime + 1000
	bw := bufio.NewWriterSize(w, 1<<20)
	var end []byte
	var a fastjson.Arena
	for c := range int64(copies) {
		g.shift, g.copy = c*span, c
		for ln := range bytes.Lines(src) {
			v, err := p.ParseBytes(ln)
			if err != nil {
				return fmt.Errorf("grow: %w", err)
			}
			name := string(v.GetStringBytes("Event"))
			switch {
			case name == "SparkListenerApplicationEnd":
				if c == 0 {
					end = bytes.Clone(ln)
				}
				continue
			case !isBody(name):
				if c > 0 {
					continue
				}
			}
			a.Reset()
			g.walk(v, "", false, &a)
			bw.Write(v.MarshalTo(nil))
			bw.WriteByte('\n')
		}
	}
	if end != nil {
		v, err := p.ParseBytes(end)
		if err != nil {
			return fmt.Errorf("grow: %w", err)
		}
		if ts := v.GetInt64("Timestamp"); ts > 0 {
			v.Set("Timestamp", a.NewNumberString(strconv.FormatInt(ts+int64(copies-1)*span, 10)))
		}
		bw.Write(v.MarshalTo(nil))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// isBody says whether an event belongs to the work a copy repeats.
func isBody(name string) bool {
	for _, p := range []string{"SparkListenerJob", "SparkListenerStage", "SparkListenerTask",
		"SparkListenerSpeculativeTask", "SparkListenerExecutorMetricsUpdate", "org.apache.spark.sql.execution.ui."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

type idKind int

const (
	noID idKind = iota
	jobID
	stageID
	taskID
	rddID
	accumID
	sqlID
	timeField
)

// grower renumbers one event: in the first pass (arena nil) it records the
// largest id of each kind, in the second it adds copy × (largest + 1).
type grower struct {
	max                 map[idKind]int64
	firstTime, lastTime int64
	copy, shift         int64
}

// kindOf is the kind of the number under key, whose object sits under
// parent (rdd: inside an RDD Info, where Parent IDs are RDDs, not stages).
func kindOf(key, parent string, rdd bool) idKind {
	switch key {
	case "Job ID":
		return jobID
	case "Stage ID", "Stage IDs":
		return stageID
	case "Parent IDs":
		if rdd {
			return rddID
		}
		return stageID
	case "Task ID":
		return taskID
	case "RDD ID":
		return rddID
	case "accumulatorId":
		return accumID
	case "ID":
		if parent == "Accumulables" || parent == "Accumulator Updates" {
			return accumID
		}
	case "executionId", "rootExecutionId", "spark.sql.execution.id", "spark.sql.execution.root.id":
		return sqlID
	case "Submission Time", "Completion Time", "Launch Time", "Finish Time", "Getting Result Time", "time", "Timestamp":
		return timeField
	}
	return noID
}

func (g *grower) walk(v *fastjson.Value, parent string, rdd bool, a *fastjson.Arena) {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		o.Visit(func(k []byte, c *fastjson.Value) {
			key := string(k)
			if key == "accumUpdates" { // [[id, value], ...]
				for _, pair := range c.GetArray() {
					if ids := pair.GetArray(); len(ids) == 2 {
						g.number(ids[0], accumID, a, func(n *fastjson.Value) { pair.SetArrayItem(0, n) })
					}
				}
				return
			}
			if k := kindOf(key, parent, rdd); k != noID {
				g.leaf(c, k, a, func(n *fastjson.Value) { o.Set(key, n) })
				return
			}
			g.walk(c, key, rdd || key == "RDD Info", a)
		})
	case fastjson.TypeArray:
		for _, c := range v.GetArray() {
			g.walk(c, parent, rdd, a)
		}
	}
}

// leaf renumbers a number, a numeric string (a property) or an array of numbers.
func (g *grower) leaf(v *fastjson.Value, k idKind, a *fastjson.Arena, set func(*fastjson.Value)) {
	if v.Type() == fastjson.TypeArray {
		for i, c := range v.GetArray() {
			g.number(c, k, a, func(n *fastjson.Value) { v.SetArrayItem(i, n) })
		}
		return
	}
	g.number(v, k, a, set)
}

func (g *grower) number(v *fastjson.Value, k idKind, a *fastjson.Arena, set func(*fastjson.Value)) {
	var n int64
	var err error
	str := v.Type() == fastjson.TypeString
	if str {
		n, err = strconv.ParseInt(string(v.GetStringBytes()), 10, 64)
	} else {
		n, err = v.Int64()
	}
	if err != nil || n < 0 || (k == timeField && n == 0) {
		return
	}
	if a == nil {
		if k == timeField {
			if g.firstTime == 0 || n < g.firstTime {
				g.firstTime = n
			}
			g.lastTime = max(g.lastTime, n)
		} else {
			g.max[k] = max(g.max[k], n)
		}
		return
	}
	if k == timeField {
		n += g.shift
	} else {
		n += g.copy * (g.max[k] + 1)
	}
	s := strconv.FormatInt(n, 10)
	if str {
		set(a.NewString(s))
	} else {
		set(a.NewNumberString(s))
	}
}

// GrownLog writes into dir the shared big log grown copies times (GrowLog),
// compressed as Spark's zstd codec writes it (a frame per flush, here
// every 64 KiB of whole lines), and returns its path.
func GrownLog(t testing.TB, dir string, copies int) string {
	t.Helper()
	src, err := readZstd(Path(t, "big", "application_1701368813061_0008.zstd"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("application_1701368813061_0008x%d.zstd", copies))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := newFrameWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := GrowLog(fw, src, copies); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func readZstd(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := zstd.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return io.ReadAll(d)
}

// frameWriter compresses whole lines into a zstd frame per 64 KiB, as
// Spark's event log writer closes a frame at each flush.
type frameWriter struct {
	w   io.Writer
	enc *zstd.Encoder
	buf []byte
}

func newFrameWriter(w io.Writer) (*frameWriter, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	return &frameWriter{w: w, enc: enc}, nil
}

func (f *frameWriter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	if len(f.buf) >= 64<<10 {
		cut := bytes.LastIndexByte(f.buf, '\n') + 1
		if err := f.flush(cut); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (f *frameWriter) flush(n int) error {
	if n == 0 {
		return nil
	}
	_, err := f.w.Write(f.enc.EncodeAll(f.buf[:n], nil))
	f.buf = append(f.buf[:0], f.buf[n:]...)
	return err
}

func (f *frameWriter) Close() error { return f.flush(len(f.buf)) }

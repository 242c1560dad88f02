package sparktest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Collector is a running sparkdx-otelcol: an OpenTelemetry Collector built
// from internal/export/otlp/testdata/otelcol by .ci/install, with an OTLP
// receiver and file exporters writing what it receives as JSON lines.
type Collector struct {
	GRPC, HTTP string // OTLP receiver addresses, 127.0.0.1:port
	Dir        string // holds the config, the log and the exporters' files
	cmd        *exec.Cmd
	exited     chan error
}

// CollectorOptions changes what StartCollector runs.
type CollectorOptions struct {
	// HTTPAddr is where the OTLP/HTTP receiver listens; "" for a free port.
	HTTPAddr string
	// TracesOnly leaves out the metrics pipeline, so the collector refuses
	// metrics.
	TracesOnly bool
}

// TracesPath is the file the collector writes the received traces to.
func (c *Collector) TracesPath() string { return filepath.Join(c.Dir, "traces.jsonl") }

// MetricsPath is the file the collector writes the received metrics to.
func (c *Collector) MetricsPath() string { return filepath.Join(c.Dir, "metrics.jsonl") }

// Log returns what the collector has printed so far.
func (c *Collector) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "collector.log"))
	return string(b)
}

// FreeAddr returns a 127.0.0.1 address nothing listens on at the moment.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return FreeAddrs(t, 1)[0]
}

// FreeAddrs returns n distinct 127.0.0.1 addresses nothing listens on at
// the moment. They are held open together until all are chosen: two
// FreeAddr calls in a row may return the same port (a Master whose RPC
// and web UI ports were one number moved its UI to the next port, and the
// test's HTTP requests went to the RPC port).
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		addrs[i] = l.Addr().String()
	}
	return addrs
}

// StartCollector runs sparkdx-otelcol receiving OTLP over gRPC and HTTP on
// 127.0.0.1, killed when the test ends (its log is printed if the test
// failed). A missing sparkdx-otelcol fails in CI and skips elsewhere.
func StartCollector(t testing.TB, opts CollectorOptions) *Collector {
	t.Helper()
	Live(t)
	bin := Program(t, "sparkdx-otelcol")
	c := &Collector{Dir: t.TempDir(), GRPC: FreeAddr(t), HTTP: opts.HTTPAddr}
	if c.HTTP == "" {
		c.HTTP = FreeAddr(t)
	}
	metrics := "    metrics: {receivers: [otlp], exporters: [file/metrics]}\n"
	if opts.TracesOnly {
		metrics = ""
	}
	conf := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc: {endpoint: %q}
      http: {endpoint: %q}
exporters:
  file/traces: {path: %q}
  file/metrics: {path: %q}
service:
  telemetry:
    logs: {level: warn}
    metrics: {level: none}
  pipelines:
    traces: {receivers: [otlp], exporters: [file/traces]}
%s`, c.GRPC, c.HTTP, c.TracesPath(), c.MetricsPath(), metrics)
	path := filepath.Join(c.Dir, "config.yaml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(bin, "--config", "file:"+path)
	log, err := os.Create(filepath.Join(c.Dir, "collector.log"))
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		log.Close()
		t.Fatal(err)
	}
	log.Close() // the child holds its own descriptor
	c.exited = make(chan error, 1)
	go func() { c.exited <- c.cmd.Wait() }()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		err := <-c.exited
		c.exited <- err
		if t.Failed() {
			t.Logf("collector log:\n%s", c.Log())
		}
	})
	for _, addr := range []string{c.GRPC, c.HTTP} {
		deadline := time.Now().Add(60 * time.Second)
		for {
			conn, err := net.Dial("tcp", addr)
			if err == nil {
				conn.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("collector did not listen on %s: %v", addr, err)
			}
			select {
			case err := <-c.exited:
				c.exited <- err
				t.Fatalf("collector exited: %v", err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return c
}

// Stop ends the collector with SIGTERM so that its file exporters flush.
// Stopping a stopped collector does nothing.
func (c *Collector) Stop(t testing.TB) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	select {
	case err := <-c.exited:
		c.exited <- err
	case <-time.After(30 * time.Second):
		t.Fatal("collector did not stop in 30s")
	}
}

// Span is the part of an OTLP JSON span tests read.
type Span struct {
	TraceID, SpanID, ParentSpanID, Name string
	Attributes                          []struct {
		Key   string
		Value struct {
			StringValue string
			IntValue    string
			ArrayValue  struct {
				Values []struct{ StringValue string }
			}
		}
	}
}

// Attr is the value of attribute k ("" when absent), strings and integers
// alike.
func (s Span) Attr(k string) string {
	for _, a := range s.Attributes {
		if a.Key == k {
			return a.Value.StringValue + a.Value.IntValue
		}
	}
	return ""
}

// Strings is the string array attribute k (nil when absent).
func (s Span) Strings(k string) []string {
	var out []string
	for _, a := range s.Attributes {
		if a.Key == k {
			for _, v := range a.Value.ArrayValue.Values {
				out = append(out, v.StringValue)
			}
		}
	}
	return out
}

// Spans reads the spans the collector has written (stop it first so that
// its file exporter has flushed).
func (c *Collector) Spans(t testing.TB) []Span {
	t.Helper()
	f, err := os.Open(c.TracesPath())
	if err != nil {
		t.Fatalf("collector wrote no traces: %v\n%s", err, c.Log())
	}
	defer f.Close()
	var out []Span
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct{ Spans []Span }
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

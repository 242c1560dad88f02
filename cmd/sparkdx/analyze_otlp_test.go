package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

func TestAnalyzeOTLPUsageErrors(t *testing.T) {
	log := sparktest.Path(t, "spark-events", "local-1430917381534")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad scheme", []string{"--otlp-endpoint", "ftp://collector:4317", log}, "want http://host:port"},
		{"bad protocol", []string{"--otlp-endpoint", "collector:4317", "--otlp-protocol", "thrift", log}, "protocol"},
		{"bad task sampling", []string{"--otlp-endpoint", "collector:4317", "--otlp-task-sampling", "2", log}, "taskSamplingRatio"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), append([]string{"analyze"}, tc.args...), &stdout, &stderr); code != 2 {
				t.Errorf("got exit %d, want 2 (stderr %q)", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tc.want)
			}
		})
	}
}

// analyze --otlp-endpoint sends the application's trace to a real
// OpenTelemetry Collector (sparkdx-otelcol, built by .ci/install).
func TestAnalyzeOTLPToCollector(t *testing.T) {
	bin := sparktest.Program(t, "sparkdx-otelcol")
	log := sparktest.Path(t, "spark-events", "local-1422981759269")
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	out := filepath.Join(dir, "traces.jsonl")
	conf := fmt.Sprintf("receivers:\n  otlp:\n    protocols:\n      grpc: {endpoint: %q}\nexporters:\n  file: {path: %q}\n"+
		"service:\n  telemetry: {metrics: {level: none}}\n  pipelines:\n    traces: {receivers: [otlp], exporters: [file]}\n", addr, out)
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	col := exec.Command(bin, "--config", "file:"+filepath.Join(dir, "c.yaml"))
	var colLog bytes.Buffer
	col.Stdout, col.Stderr = &colLog, &colLog
	if err := col.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { col.Process.Kill(); col.Wait() }()
	for deadline := time.Now().Add(60 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("collector not listening:\n%s", colLog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var stdout, stderr bytes.Buffer
	// The collector has no metrics pipeline: that refusal is a warning.
	if code := run(context.Background(), []string{"analyze", "--format", "json", "--otlp-endpoint", "http://" + addr, log}, &stdout, &stderr); code != 0 {
		t.Fatalf("got exit %d, want 0; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "otlp export") {
		t.Errorf("stderr %q: want a warning about the refused metrics", stderr.String())
	}
	col.Process.Signal(syscall.SIGTERM)
	col.Wait()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"spark.application"`, `"name":"spark.job"`, `"name":"spark.stage"`, `"stringValue":"local-1422981759269"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("collector output lacks %s", want)
		}
	}
	if !strings.Contains(stdout.String(), `"schema": "sparkdx.report/v1"`) && !strings.Contains(stdout.String(), `"schema":"sparkdx.report/v1"`) {
		t.Errorf("stdout lacks the report")
	}
}

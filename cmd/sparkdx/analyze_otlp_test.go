package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
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
			if code := run(context.Background(), append([]string{"analyze"}, tc.args...), nil, &stdout, &stderr); code != 2 {
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
	col := sparktest.StartCollector(t, sparktest.CollectorOptions{TracesOnly: true})
	log := sparktest.Path(t, "spark-events", "local-1422981759269")
	addr := col.GRPC
	var stdout, stderr bytes.Buffer
	// The collector has no metrics pipeline: that refusal is a warning.
	if code := run(context.Background(), []string{"analyze", "--format", "json", "--otlp-endpoint", "http://" + addr, log}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("got exit %d, want 0; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "otlp export") {
		t.Errorf("stderr %q: want a warning about the refused metrics", stderr.String())
	}
	col.Stop(t)
	b, err := os.ReadFile(col.TracesPath())
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

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

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

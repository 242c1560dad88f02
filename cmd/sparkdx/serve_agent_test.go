package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestAgentToServe runs the real pipeline: a Spark-named executor JVM, a
// `sparkdx agent` pushing OTLP/HTTP protobuf metrics with a bearer token
// (OTEL_EXPORTER_OTLP_METRICS_HEADERS, as any OpenTelemetry exporter
// reads it), and `sparkdx serve --auth-token-file` storing the samples
// under the executor's application and executor ids.
func TestAgentToServe(t *testing.T) {
	java := sparktest.Program(t, "java")
	javac := sparktest.Program(t, "javac")
	bin := buildSparkdx(t)

	// The agent's own test JVM sources: a class named like Spark's
	// executor backend that idles until stdin closes.
	classes := t.TempDir()
	var srcs []string
	filepath.WalkDir(filepath.Join("..", "..", "internal", "agent", "testdata", "java"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".java") {
			srcs = append(srcs, p)
		}
		return nil
	})
	if out, err := exec.Command(javac, append([]string{"-d", classes}, srcs...)...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	const app = "app-20200706201101-0003"
	jvm := exec.Command(java, "-Xmx64m", "-cp", classes, "org.apache.spark.executor.CoarseGrainedExecutorBackend",
		"--driver-url", "spark://d:1", "--executor-id", "7", "--hostname", "127.0.0.1", "--cores", "1", "--app-id", app)
	stdin, _ := jvm.StdinPipe()
	stdout, _ := jvm.StdoutPipe()
	if err := jvm.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); jvm.Wait() }()
	if sc := bufio.NewScanner(stdout); !sc.Scan() || sc.Text() != "ready" {
		t.Fatalf("test JVM did not start")
	}

	tok := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tok, []byte("agent-secret\n"), 0o600)
	addr := sparktest.FreeAddr(t)
	serve := exec.Command(bin, "serve", "--event-logs", sparktest.Path(t, "spark-events"), "--data", t.TempDir(),
		"--listen", addr, "--auth-token-file", tok)
	var serveOut strings.Builder
	serve.Stdout, serve.Stderr = &serveOut, &serveOut
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Kill(); serve.Wait() }()

	agent := exec.Command(bin, "agent", "--interval", "1s", "--listen", "", "--otlp-endpoint", "http://"+addr+"/v1/metrics")
	agent.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_METRICS_HEADERS=Authorization=Bearer%20agent-secret")
	var agentOut strings.Builder
	agent.Stdout, agent.Stderr = &agentOut, &agentOut
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { agent.Process.Kill(); agent.Wait() }()

	type sample struct {
		AppID, ExecutorID, Metric string
		Time                      int64
		Value                     float64
	}
	var got []sample
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/sparkdx/v1/apps/"+app+"/samples", nil)
		req.Header.Set("Authorization", "Bearer agent-secret")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			got = nil
			json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
		}
		metrics := map[string]bool{} // seen for executor 7; sizes and counts must be positive
		for _, s := range got {
			if s.ExecutorID == "7" && s.AppID == app && (s.Value > 0 || strings.HasPrefix(s.Metric, "jvm.memory.used")) {
				metrics[s.Metric] = true
			}
		}
		if metrics["jvm.memory.used{heap}"] && metrics["jvm.class.count"] && metrics["process.memory.usage"] {
			var n int
			var peak float64
			for _, s := range got {
				if s.Metric == "jvm.memory.used{heap}" && s.ExecutorID == "7" {
					n, peak = n+1, max(peak, s.Value)
				}
			}
			t.Logf("%d samples in all; %d of executor 7's heap, peak %.0f bytes", len(got), n, peak)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no heap, class and RSS samples of executor 7 after 60s: %d samples %v\nagent:\n%s\nserve:\n%s",
				len(got), metrics, agentOut.String(), serveOut.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
	// And the app page draws them.
	req, _ := http.NewRequest("GET", "http://"+addr+"/apps/"+app, nil)
	req.Header.Set("Authorization", "Bearer agent-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page := new(strings.Builder)
	bufio.NewReader(resp.Body).WriteTo(page)
	if !strings.Contains(page.String(), "executor 7") || !strings.Contains(page.String(), "Classes loaded") {
		t.Errorf("app page does not draw executor 7's agent samples")
	}
}

package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// scrape samples a fixture node once and returns its /metrics text.
func scrape(t *testing.T, node string) string {
	t.Helper()
	a := fixtureAgent(t, filepath.Join("testdata", node), Config{})
	sample(t, a)
	return metricsText(t, a)
}

// metricsText is the agent's /metrics as its handler serves it.
func metricsText(t *testing.T, a *Agent) string {
	t.Helper()
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("got status %d, want 200: %s", resp.StatusCode, b)
	}
	return string(b)
}

func TestMetricsGolden(t *testing.T) {
	for _, node := range []string{"node1", "node2"} {
		t.Run(node, func(t *testing.T) {
			var keep []string
			for line := range strings.Lines(scrape(t, node)) {
				// The agent's own CPU time differs on every run.
				if !strings.HasPrefix(line, "sparkdx_agent_cpu_seconds_total{") {
					keep = append(keep, line)
				}
			}
			golden(t, node+".metrics", []byte(strings.Join(keep, "")))
		})
	}
}

func TestMetricsPromtool(t *testing.T) {
	promtool := sparktest.Program(t, "promtool")
	for _, node := range []string{"node1", "node2"} {
		t.Run(node, func(t *testing.T) {
			cmd := exec.Command(promtool, "check", "metrics")
			cmd.Stdin = strings.NewReader(scrape(t, node))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil || out.Len() > 0 {
				t.Errorf("promtool check metrics: %v\n%s", err, out.String())
			}
		})
	}
}

// TestPrometheusScrapes runs a real Prometheus server against the agent's
// /metrics and queries what it stored.
func TestPrometheusScrapes(t *testing.T) {
	prom := sparktest.Program(t, "prometheus")
	a := fixtureAgent(t, filepath.Join("testdata", "node1"), Config{})
	sample(t, a)
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()

	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: sparkdx-agent\n    static_configs:\n      - targets: [%q]\n",
		strings.TrimPrefix(srv.URL, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := sparktest.FreeAddr(t)
	cmd := exec.Command(prom, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()

	query := url.QueryEscape(`sparkdx_process_tree_resident_memory_bytes{executor_id="7",kind="python"}`)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var res struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Value  [2]any            `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + query)
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&res)
			resp.Body.Close()
		}
		if err == nil && len(res.Data.Result) == 1 {
			r := res.Data.Result[0]
			want := fmt.Sprint((5000 + 20000) * os.Getpagesize())
			if r.Value[1] != want || r.Metric["app_id"] != "app-20240101000000-0001" || r.Metric["job"] != "sparkdx-agent" {
				t.Errorf("got %v %v, want value %s for app-20240101000000-0001 scraped by job sparkdx-agent", r.Metric, r.Value, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus has no sample after 60s (last error %v); its log:\n%s", err, log.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

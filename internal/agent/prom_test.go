package agent

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// scrape samples a fixture node once and returns its /metrics text.
func scrape(t *testing.T, node string) string {
	t.Helper()
	a := fixtureAgent(t, filepath.Join("testdata", node), Config{})
	sample(t, a)
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

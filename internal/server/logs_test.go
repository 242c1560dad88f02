package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestLogsStatus: /api/sparkdx/v1/logs says for every log where it stands
// and for every entry it passed over why, and /healthz turns "degraded",
// naming the problem, when a log failed or a root cannot be listed.
func TestLogsStatus(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"local-1430917381534": good,
		"app-broken.zstd":     []byte("this is not zstd at all\n"),
		"notes.txt":           []byte("runbook\n"),
		".hidden":             []byte("x"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "scratch"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	ts := startServer(t, t.TempDir(), "", dir, missing)
	ts.waitIdle(t)

	var st ingest.LogsStatus
	ts.getJSON(t, "/api/sparkdx/v1/logs", &st)
	states := map[string]ingest.LogStatus{}
	for _, l := range st.Logs {
		states[filepath.Base(l.Path)] = l
	}
	want := map[string]ingest.LogState{"local-1430917381534": ingest.StateDone, "app-broken.zstd": ingest.StateFailed,
		"notes.txt": ingest.StateSkipped, "scratch": ingest.StateSkipped}
	for name, state := range want {
		l, ok := states[name]
		if !ok || l.State != state {
			t.Errorf("%s: got %+v, want state %s", name, l, state)
			continue
		}
		if state != ingest.StateDone && l.Error == "" {
			t.Errorf("%s: %s without a reason", name, state)
		}
	}
	if l := states["local-1430917381534"]; l.AppID != "local-1430917381534" || l.Events == 0 || l.Bytes != int64(len(good)) {
		t.Errorf("good log: got %+v", l)
	}
	if _, ok := states[".hidden"]; ok {
		t.Error("a hidden file is listed")
	}
	var rootErr string
	for _, r := range st.Roots {
		if r.Root == missing {
			rootErr = r.Error
		}
	}
	if rootErr == "" {
		t.Errorf("root %s: no error; roots %+v", missing, st.Roots)
	}

	var health struct {
		Status   string   `json:"status"`
		Problems []string `json:"problems"`
	}
	ts.getJSON(t, "/healthz", &health)
	all := strings.Join(health.Problems, "\n")
	if health.Status != "degraded" || !strings.Contains(all, "app-broken.zstd") || !strings.Contains(all, "cannot list "+missing) {
		t.Errorf("healthz: got %s %q, want degraded naming the broken log and the missing root", health.Status, health.Problems)
	}

	clean := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	clean.waitIdle(t)
	health.Status, health.Problems = "", nil
	clean.getJSON(t, "/healthz", &health)
	if health.Status != "ok" || len(health.Problems) > 0 {
		t.Errorf("healthz over the shared logs: got %s %q, want ok", health.Status, health.Problems)
	}
}

// TestLogsPage: the page lists each log with its state and reason.
func TestLogsPage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app-broken.zstd"), []byte("not zstd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	code, body := ts.get(t, "/logs")
	if code != 200 {
		t.Fatalf("GET /logs: %d", code)
	}
	page := string(body)
	for _, want := range []string{"app-broken.zstd", ">failed<", "notes.txt", ">skipped<", "Ingest is degraded"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

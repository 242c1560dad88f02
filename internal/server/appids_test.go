package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestDuplicateAppIDs: two logs of one application attempt are one
// application everywhere — the History Server list, the fleet, /metrics
// — the log that changed last; the other is listed as a duplicate naming
// it (issue 32, item 9: REST showed one, /metrics the other, the fleet
// both under one id).
func TestDuplicateAppIDs(t *testing.T) {
	const app = "local-1430917381534"
	orig, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	older, newer := filepath.Join(dir, app), filepath.Join(dir, "copy-of-"+app)
	renamed := bytes.ReplaceAll(orig, []byte(`"App Name":"Spark shell"`), []byte(`"App Name":"Spark shell, again"`))
	for _, f := range []struct {
		path string
		data []byte
		at   time.Time
	}{{older, orig, time.Now().Add(-time.Hour)}, {newer, renamed, time.Now()}} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f.path, f.at, f.at); err != nil {
			t.Fatal(err)
		}
	}
	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	var hs []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	ts.getJSON(t, "/api/v1/applications", &hs)
	var fleet []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &fleet)
	if len(hs) != 1 || hs[0].Name != "Spark shell, again" || len(fleet) != 1 || fleet[0].Name != "Spark shell, again" {
		t.Errorf("History Server list %+v, fleet %d apps: want one, the log changed last", hs, len(fleet))
	}
	_, metrics := ts.get(t, "/metrics")
	if n := bytes.Count(metrics, []byte(`spark_app_info{`)); n != 1 || !bytes.Contains(metrics, []byte("Spark shell, again")) {
		t.Errorf("/metrics: %d spark_app_info series, want one, of the log changed last", n)
	}
	var logs ingest.LogsStatus
	ts.getJSON(t, "/api/sparkdx/v1/logs", &logs)
	var states []string
	for _, l := range logs.Logs {
		states = append(states, string(l.State))
		if l.Path == older && (l.State != ingest.StateDuplicate || !strings.Contains(l.Error, newer)) {
			t.Errorf("the older log: %+v, want state duplicate naming %s", l, newer)
		}
	}
	if len(states) != 2 {
		t.Errorf("logs %v, want both listed", states)
	}
}

// TestAppIDWithSlash: an application id holding "/" is listed and
// reachable, escaped as %2F, in every API and page, and the pages link
// to it that way.
func TestAppIDWithSlash(t *testing.T) {
	const app, id = "local-1430917381534", "team/etl-7"
	orig, err := os.ReadFile(sparktest.Path(t, "spark-events", app))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "etl-7"), bytes.ReplaceAll(orig, []byte(app), []byte(id)), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	const esc = "team%2Fetl-7"
	for _, p := range []string{"/api/v1/applications/" + esc, "/api/v1/applications/" + esc + "/jobs",
		"/api/v1/applications/" + esc + "/stages/0/0/taskList", "/api/v1/applications/" + esc + "/environment",
		"/api/sparkdx/v1/apps/" + esc, "/api/sparkdx/v1/apps/" + esc + "/report",
		"/apps/" + esc, "/apps/" + esc + "/jobs", "/apps/" + esc + "/stages/0/0"} {
		code, body := ts.get(t, p)
		if code != 200 {
			t.Errorf("GET %s: %d %.200s", p, code, body)
		}
		if strings.HasPrefix(p, "/api/v1/applications/"+esc+"/jobs") {
			var jobs []json.RawMessage
			if json.Unmarshal(body, &jobs) != nil || len(jobs) == 0 {
				t.Errorf("GET %s: %.200s, want the jobs", p, body)
			}
		}
	}
	_, fleet := ts.get(t, "/")
	if !bytes.Contains(fleet, []byte(`href="/apps/`+esc)) {
		t.Error("the fleet page does not link to /apps/" + esc)
	}
	_, page := ts.get(t, "/apps/"+esc)
	if bytes.Contains(page, []byte(`href="/apps/team/etl-7`)) {
		t.Error("the app page links to /apps/team/etl-7, which no route reaches")
	}
}

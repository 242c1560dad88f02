package hstest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Endpoints lists every /api/v1 path (without the prefix) the History
// Server at base answers for its applications.
func Endpoints(t testing.TB, base string) []string {
	paths := ListEndpoints()
	for _, app := range Apps(t, base) {
		paths = append(paths, "applications/"+app.ID)
		for _, at := range app.Attempts {
			paths = append(paths, AttemptEndpoints(t, base, at.Path)...)
		}
	}
	return paths
}

// ListEndpoints are the paths that list the applications.
func ListEndpoints() []string {
	return []string{"applications", "applications?status=completed", "applications?status=running", "applications?limit=1"}
}

// App is an application the History Server lists, with its attempts.
type App struct {
	ID       string
	Attempts []Attempt
}

// Attempt is an attempt as the History Server lists it: its path
// ("applications/ID" or "applications/ID/ATTEMPT"), whether it completed,
// and when the History Server says its log was last updated (for an
// unfinished log, the instant its scan read it: the "now" its running
// tasks run to).
type Attempt struct {
	Path, ID         string
	Completed        bool
	LastUpdatedEpoch int64
}

// Apps lists the History Server's applications, from its listing alone.
func Apps(t testing.TB, base string) []App {
	var apps []struct {
		ID       string `json:"id"`
		Attempts []struct {
			AttemptID        string `json:"attemptId"`
			Completed        bool   `json:"completed"`
			LastUpdatedEpoch int64  `json:"lastUpdatedEpoch"`
		} `json:"attempts"`
	}
	GetJSON(t, base+"/api/v1/applications", &apps)
	out := make([]App, 0, len(apps))
	for _, app := range apps {
		a := App{ID: app.ID}
		for _, at := range app.Attempts {
			p := "applications/" + app.ID
			if at.AttemptID != "" {
				p += "/" + at.AttemptID
			}
			a.Attempts = append(a.Attempts, Attempt{Path: p, ID: at.AttemptID, Completed: at.Completed, LastUpdatedEpoch: at.LastUpdatedEpoch})
		}
		out = append(out, a)
	}
	return out
}

func AttemptEndpoints(t testing.TB, base, app string) []string {
	paths := []string{}
	for _, p := range []string{"jobs", "stages", "stages?details=true", "stages?withSummaries=true", "stages?status=complete",
		"executors", "allexecutors", "storage/rdd", "environment", "allmiscellaneousprocess", "sql", "sql?details=false"} {
		paths = append(paths, app+"/"+p)
	}
	var jobs []struct {
		JobID int `json:"jobId"`
	}
	GetJSON(t, base+"/api/v1/"+app+"/jobs", &jobs)
	for _, j := range jobs {
		paths = append(paths, fmt.Sprintf("%s/jobs/%d", app, j.JobID))
	}
	var stages []struct {
		StageID   int `json:"stageId"`
		AttemptID int `json:"attemptId"`
	}
	GetJSON(t, base+"/api/v1/"+app+"/stages", &stages)
	seen := map[int]bool{}
	for _, s := range stages {
		if !seen[s.StageID] {
			seen[s.StageID] = true
			paths = append(paths, fmt.Sprintf("%s/stages/%d", app, s.StageID))
		}
		sa := fmt.Sprintf("%s/stages/%d/%d", app, s.StageID, s.AttemptID)
		paths = append(paths, sa, sa+"/taskSummary", sa+"/taskSummary?quantiles=0.01,0.5,0.99",
			sa+"/taskList", sa+"/taskList?offset=1&length=3&sortBy=-runtime", sa+"/taskList?sortBy=runtime")
	}
	var sqls []struct {
		ID int `json:"id"`
	}
	if status, _ := Get(t, base+"/api/v1/"+app+"/sql"); status == http.StatusOK {
		GetJSON(t, base+"/api/v1/"+app+"/sql", &sqls)
	}
	for _, q := range sqls {
		paths = append(paths, fmt.Sprintf("%s/sql/%d", app, q.ID), fmt.Sprintf("%s/sql/%d?planDescription=false", app, q.ID))
	}
	return paths
}

// EndpointKind names the endpoint of path with its ids replaced, e.g.
// "applications/{id}/stages/{n}/{n}/taskSummary".
func EndpointKind(path string) string {
	p, q, _ := strings.Cut(path, "?")
	parts := strings.Split(p, "/")
	for i := range parts {
		if i == 1 || (i > 1 && isNumber(parts[i])) {
			parts[i] = "{id}"
		}
	}
	k := strings.Join(parts, "/")
	if q != "" {
		k += "?" + q
	}
	return k
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Get fetches u and returns its status and body; a transport error fails
// the test.
func Get(t testing.TB, u string) (int, []byte) {
	t.Helper()
	status, b, err := Fetch(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return status, b
}

// Fetch is Get for a server that may not answer yet: it returns the
// transport error instead of failing the test.
func Fetch(u string) (int, []byte, error) {
	client := http.Client{Timeout: 60 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// GetJSON decodes the 200 answer of u into v.
func GetJSON(t testing.TB, u string, v any) {
	t.Helper()
	status, b := Get(t, u)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, status, FirstLine(b))
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// FirstLine is b's first line, at most 200 bytes, for messages.
func FirstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

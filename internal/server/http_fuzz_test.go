package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/access"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// FuzzServeHTTP sends serve any method, path, query and Host over the
// shared Spark logs: nothing panics or fails with a 500, a Host outside
// the allowlist is refused everywhere, a redirect stays on this server,
// and no answer grows past a bound (issue 32: the red-team pass's
// requests, fuzzed).
func FuzzServeHTTP(f *testing.F) {
	for _, s := range []struct {
		method      byte
		path, query string
		host        string
	}{
		{0, "/", "q=local&sort=-duration&length=5", ""},
		{0, "/api/v1/applications/local-1430917381534/stages/0/0/taskList", "offset=-3&length=9&sortBy=-runtime", ""},
		{0, "/api/v1/applications/app-20200706201101-0003/stages", "withSummaries=true&quantiles=0.1,0.9", ""},
		{0, "/apps/local-1430917381534/stages/0/0", "sort=-runtime&offset=5&junk=1", ""},
		{0, "//evil.example.com/", "token=x", ""},
		{0, "/api/sparkdx/v1/apps/team%2Fetl/report", "attempt=1", ""},
		{0, "/api/sparkdx/v1/diff", "a=local-1422981759269&b=local-1425081759269", ""},
		{2, "/v1/metrics", "", ""},
		{0, "/healthz", "", "evil.example.com"},
		{1, "/metrics", "", "[::1]:18080"},
	} {
		f.Add(s.method, s.path, s.query, s.host)
	}
	hosts, err := access.NewHosts("127.0.0.1:18080", []string{"sparkdx.example.com"})
	if err != nil {
		f.Fatal(err)
	}
	ts := startServerWith(f, f.TempDir(), []string{sparktest.Path(f, "spark-events")}, func(_ *ingest.Config, sc *Config) {
		sc.Hosts = hosts
		sc.AuthToken = "s3cret"
	})
	ts.waitIdle(f)
	methods := []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"}
	f.Fuzz(func(t *testing.T, method byte, path, query, host string) {
		u, err := url.Parse("http://x" + path)
		if err != nil || !strings.HasPrefix(path, "/") || u.Host != "x" {
			return
		}
		u.RawQuery = query
		if host == "" {
			host = "localhost"
		}
		req := httptest.NewRequest(methods[int(method)%len(methods)], "/", nil)
		req.URL, req.Host, req.RequestURI = u, host, u.RequestURI()
		if !strings.Contains(query, "token=") {
			req.Header.Set("Authorization", "Bearer s3cret")
		}
		rec := httptest.NewRecorder()
		ts.srv.ServeHTTP(rec, req)
		switch {
		case rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable:
			t.Fatalf("%s %s (Host %q): %d %.300s", req.Method, u.RequestURI(), host, rec.Code, rec.Body.Bytes())
		case !hosts.Allowed(host) && rec.Code != http.StatusForbidden:
			t.Fatalf("Host %q is not allowed, got %d", host, rec.Code)
		case rec.Body.Len() > 64<<20:
			t.Fatalf("%s %s: %d bytes", req.Method, u.RequestURI(), rec.Body.Len())
		}
		if loc := rec.Header().Get("Location"); loc != "" && (!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") ||
			strings.HasPrefix(loc, `/\`)) {
			t.Fatalf("%s %s redirects to %q, off this server", req.Method, u.RequestURI(), loc)
		}
		if bytes.Contains(rec.Body.Bytes(), []byte("s3cret")) {
			t.Fatalf("%s %s shows the token", req.Method, u.RequestURI())
		}
	})
}

package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/otlpin"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sparkdx/sparkdx/internal/access"
	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestAuthToken(t *testing.T) {
	ts := startServer(t, t.TempDir(), "s3cret", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	cases := []struct {
		path, auth string
		want       int
	}{
		{"/healthz", "", 200},
		{"/api/v1/applications", "", 401},
		{"/api/v1/applications", "Bearer wrong", 401},
		{"/api/v1/applications", "Bearer s3cret", 200},
		{"/api/v1/applications", "bearer s3cret", 200},
		{"/api/v1/applications", "BEARER  s3cret", 200},
		{"/api/v1/applications", "Basic s3cret", 401},
		{"/api/v1/applications", "Bearers3cret", 401},
		{"/", "", 401},
		{"/", "Bearer s3cret", 200},
		{"/api/sparkdx/v1/apps", "", 401},
		{"/metrics", "", 401},
		{"/static/app.js", "", 401},
		{"/?token=wrong", "", 401},
	}
	for _, c := range cases {
		t.Run(c.path+" "+c.auth, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.url+c.path, nil)
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("got %d, want %d", resp.StatusCode, c.want)
			}
		})
	}
	// A browser's ?token= login sets a cookie that authorises later pages.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(ts.url + "/?token=s3cret")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || !resp.Cookies()[0].HttpOnly {
		t.Fatalf("token login: got %d with cookies %v, want 303 and one HttpOnly cookie", resp.StatusCode, resp.Cookies())
	}
	// The login keeps the page asked for, without the token.
	deep, err := client.Get(ts.url + "/apps/local-1430917381534?tab=stages&token=s3cret")
	if err != nil {
		t.Fatal(err)
	}
	deep.Body.Close()
	if loc := deep.Header.Get("Location"); loc != "/apps/local-1430917381534?tab=stages" {
		t.Errorf("token login redirects to %q, want the page asked for without the token", loc)
	}
	req, _ := http.NewRequest("GET", ts.url+"/api/v1/applications", nil)
	req.AddCookie(resp.Cookies()[0])
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the cookie: got %d, want 200", resp.StatusCode)
	}
}

// TestNoPathTraversal: request paths never reach files outside the index.
func TestNoPathTraversal(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	for _, p := range []string{
		"/api/v1/applications/..%2f..%2f..%2fetc%2fpasswd/logs",
		"/api/v1/applications/%2e%2e/%2e%2e/etc/passwd",
		"/static/..%2f..%2fserver.go",
		"/static/../server.go",
		"/apps/..%2f..%2fetc%2fpasswd",
		"/api/sparkdx/v1/apps/..%2f..%2fetc%2fpasswd/report",
		"/api/v1/applications/local-1430917381534/..%2f..%2f..%2f..%2fetc%2fpasswd",
	} {
		code, body := ts.get(t, p)
		if code == 200 || bytes.Contains(body, []byte("root:")) || bytes.Contains(body, []byte("package server")) {
			t.Errorf("GET %s: got %d %.100q, want an error and no file content", p, code, body)
		}
	}
}

// TestEscaping: the Spark test app named <script>alert('XSS')</script>
// is served verbatim in JSON (as the History Server does) and escaped in
// every HTML page.
func TestEscaping(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	const raw = "<script>alert('XSS')</script>"
	_, body := ts.get(t, "/api/v1/applications/local-1766844910796")
	if !bytes.Contains(body, []byte(raw)) {
		t.Errorf("History Server JSON: want the name verbatim, got %.200s", body)
	}
	for _, p := range []string{"/", "/apps/local-1766844910796", "/compare?a=local-1766844910796&b=local-1766844910796",
		"/?q=" + "%3Cscript%3Ealert(1)%3C/script%3E", "/apps/%3Cscript%3Ealert(1)%3C%2Fscript%3E"} {
		code, body := ts.get(t, p)
		if bytes.Contains(body, []byte("<script>alert")) {
			t.Errorf("GET %s (%d): unescaped script in HTML", p, code)
		}
		if p == "/apps/local-1766844910796" && !strings.Contains(string(body), "&lt;script&gt;alert(&#39;XSS&#39;)&lt;/script&gt;") {
			t.Errorf("GET %s: escaped name missing", p)
		}
	}
}

func TestJSONErrors(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	for _, c := range []struct {
		path string
		want int
	}{
		{"/api/sparkdx/v1/apps/nope/report", 404},
		{"/api/sparkdx/v1/apps?status=sleeping", 400},
		{"/api/sparkdx/v1/apps?from=yesterday", 400},
		{"/api/sparkdx/v1/diff?a=local-1430917381534", 400},
		{"/api/sparkdx/v1/nothing", 404},
	} {
		code, body := ts.get(t, c.path)
		var e apiError
		if code != c.want {
			t.Errorf("GET %s: got %d, want %d", c.path, code, c.want)
		}
		if err := jsonUnmarshal(body, &e); err != nil || e.Status != c.want || e.Error == "" {
			t.Errorf("GET %s: got body %s, want a JSON error with status %d", c.path, body, c.want)
		}
	}
	// The same document `sparkdx diff --format json` writes: the second log
	// is the first shifted in time, so every stage matches by name.
	var d diff.Diff
	ts.getJSON(t, "/api/sparkdx/v1/diff?a=local-1422981759269&b=local-1425081759269", &d)
	if d.Schema != diff.Schema || d.Before.AppID != "local-1422981759269" || d.After.AppID != "local-1425081759269" ||
		len(d.Stages) == 0 || d.Phases[0].Delta != d.After.DurationMs-d.Before.DurationMs {
		t.Errorf("diff: got %+v", d)
	}
	for _, s := range d.Stages {
		if s.Status != diff.StageMatched || s.Match != diff.MatchName {
			t.Errorf("diff: stage %+v, want every stage matched by name", s)
		}
	}
}

func TestOTLPSamples(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	pt := func(v int64, pool string) *metricpb.NumberDataPoint {
		return &metricpb.NumberDataPoint{TimeUnixNano: 1594091500000 * 1e6, Value: &metricpb.NumberDataPoint_AsInt{AsInt: v},
			Attributes: []*commonpb.KeyValue{str("spark.app.id", "app-20200706201101-0003"), str("spark.executor.id", "0"),
				str("jvm.memory.type", "heap"), str("jvm.memory.pool.name", pool)}}
	}
	req := &metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("host.name", "n1")}},
		ScopeMetrics: []*metricpb.ScopeMetrics{{Metrics: []*metricpb.Metric{{Name: "jvm.memory.used",
			Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: []*metricpb.NumberDataPoint{pt(100, "G1 Eden Space"), pt(50, "G1 Old Gen")}}}}}}},
	}}}
	body, _ := proto.Marshal(req)
	resp, err := http.Post(ts.url+"/v1/metrics", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("OTLP post: got %d", resp.StatusCode)
	}
	var got []struct {
		ExecutorID string  `json:"executorId"`
		Metric     string  `json:"metric"`
		Value      float64 `json:"value"`
	}
	ts.getJSON(t, "/api/sparkdx/v1/apps/app-20200706201101-0003/samples", &got)
	// The pools are summed; the old generation is also kept on its own
	// (driver-degradation reads it).
	if len(got) != 2 || got[0].Metric != "jvm.memory.used{heap}" || got[0].Value != 150 || got[0].ExecutorID != "0" ||
		got[1].Metric != "jvm.memory.used{old}" || got[1].Value != 50 || got[1].ExecutorID != "0" {
		t.Errorf("samples: got %+v, want jvm.memory.used{heap} = 150 (two pools summed) and jvm.memory.used{old} = 50 for executor 0", got)
	}
	_, page := ts.get(t, "/apps/app-20200706201101-0003")
	if !bytes.Contains(page, []byte("agent: jvm.memory.used{heap}")) || !bytes.Contains(page, []byte("JVM heap used")) {
		t.Errorf("app page does not draw the agent's memory samples")
	}
	resp, _ = http.Post(ts.url+"/v1/metrics", "application/x-protobuf", bytes.NewReader([]byte{0xff, 0xff}))
	if resp.StatusCode != 400 {
		t.Errorf("garbage OTLP body: got %d, want 400", resp.StatusCode)
	}
}

// TestRedaction: secrets in Spark, Hadoop and system properties never
// reach a response or the store.
func TestRedaction(t *testing.T) {
	data, err := os.ReadFile(sparktest.Path(t, "spark-events", tailApp))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "hunter2-do-not-show"
	inject := `"Spark Properties":{"spark.ssl.keyPassword":"` + secret + `","spark.hadoop.fs.s3a.access.key":"AKIA` + secret + `",`
	out := bytes.Replace(data, []byte(`"Spark Properties":{`), []byte(inject), 1)
	out = bytes.Replace(out, []byte(`"System Properties":{`), []byte(`"System Properties":{"javax.net.ssl.trustStorePassword":"`+secret+`",`), 1)
	if bytes.Equal(out, data) {
		t.Fatal("no environment event to inject into")
	}
	for _, running := range []bool{true, false} {
		t.Run(map[bool]string{true: "running", false: "finished"}[running], func(t *testing.T) {
			dir, data := t.TempDir(), t.TempDir()
			name := tailApp
			if running {
				name += ".inprogress"
			}
			if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
				t.Fatal(err)
			}
			ts := startServer(t, data, "", dir)
			ts.waitIdle(t)
			for _, p := range []string{"/api/v1/applications/" + tailApp + "/environment",
				"/api/v1/applications/" + tailApp + "/environment?x=model", "/api/sparkdx/v1/apps/" + tailApp + "/report",
				"/apps/" + tailApp} {
				code, body := ts.get(t, p)
				if code != 200 {
					t.Fatalf("GET %s: %d", p, code)
				}
				if bytes.Contains(body, []byte(secret)) {
					t.Errorf("GET %s shows the secret", p)
				}
				if strings.HasSuffix(p, "environment") && !bytes.Contains(body, []byte("*********(redacted)")) {
					t.Errorf("GET %s: no redacted value", p)
				}
			}
			if code, _ := ts.get(t, "/api/v1/applications/"+tailApp+"/logs"); code != http.StatusForbidden {
				t.Errorf("raw logs: got %d, want 403 without --serve-raw-logs", code)
			}
			ts.stop()
			ts.stop = nil
			filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
						t.Errorf("store file %s holds the secret", p)
					}
				}
				return nil
			})
		})
	}
}

// TestRawLogsOptIn: with RawLogs the History Server's logs zip is served,
// built from the indexed log only.
func TestRawLogsOptIn(t *testing.T) {
	st := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	st.srv.cfg.RawLogs = true
	st.waitIdle(t)
	code, body := st.get(t, "/api/v1/applications/local-1430917381535/2/logs")
	if code != 200 || !bytes.HasPrefix(body, []byte("PK")) {
		t.Errorf("logs zip: got %d %.20q, want 200 and a zip", code, body)
	}
}

// TestLoginRedirectIsLocal: the token login's redirect stays on this
// server whatever path it was asked for (issue 32, item 10: GET
// //evil.example.com/?token=T answered Location: //evil.example.com/).
func TestLoginRedirectIsLocal(t *testing.T) {
	ts := startServer(t, t.TempDir(), "s3cret", t.TempDir())
	for _, c := range []struct{ path, want string }{
		{"//evil.example.com/?token=s3cret", "/evil.example.com/"},
		{"///evil.example.com/x?token=s3cret&a=1", "/evil.example.com/x?a=1"},
		{`/\evil.example.com/?token=s3cret`, "/%5Cevil.example.com/"},
		{"/apps/a%2Fb?token=s3cret", "/apps/a%2Fb"},
		{"/?token=s3cret", "/"},
	} {
		status, loc := sparktest.RawGet(t, ts.url, c.path)
		if status != http.StatusSeeOther || loc != c.want {
			t.Errorf("GET %s: got %d Location %q, want 303 %q", c.path, status, loc, c.want)
		}
	}
}

// TestHostAllowlist: a request naming a host outside the allowlist is
// refused on every path, /healthz and the OTLP receiver included (DNS
// rebinding, issue 32 item 11); addresses and allowed names are served.
func TestHostAllowlist(t *testing.T) {
	hosts, err := access.NewHosts("127.0.0.1:0", []string{"sparkdx.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, t.TempDir(), []string{t.TempDir()}, func(_ *ingest.Config, sc *Config) { sc.Hosts = hosts })
	for _, c := range []struct {
		method, path, host string
		want               int
	}{
		{"GET", "/api/v1/applications", "evil.example.com", 403},
		{"GET", "/healthz", "evil.example.com:18080", 403},
		{"POST", "/v1/metrics", "evil.example.com", 403},
		{"GET", "/api/v1/applications", "localhost", 200},
		{"GET", "/api/v1/applications", "sparkdx.example.com", 200},
		{"GET", "/healthz", "10.0.0.7:18080", 200},
	} {
		req, _ := http.NewRequest(c.method, ts.url+c.path, nil)
		req.Host = c.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s Host %s: got %d, want %d", c.method, c.path, c.host, resp.StatusCode, c.want)
		}
	}
}

// TestOTLPBounds: points of applications serve does not know are kept
// for at most otlpin.MaxPendingApps of them, an application's series are at
// most otlpin.MaxSeriesPerApp, and both are counted in /metrics (issue 32,
// item 6: made-up applications and series grew the store without end).
func TestOTLPBounds(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	post := func(app string, series int) {
		t.Helper()
		var pts []*metricpb.NumberDataPoint
		for i := range series {
			pts = append(pts, &metricpb.NumberDataPoint{TimeUnixNano: 1594091500000 * 1e6, Value: &metricpb.NumberDataPoint_AsInt{AsInt: 1},
				Attributes: []*commonpb.KeyValue{str("spark.app.id", app), str("spark.executor.id", strconv.Itoa(i))}})
		}
		body, _ := proto.Marshal(&metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{ScopeMetrics: []*metricpb.ScopeMetrics{{
			Metrics: []*metricpb.Metric{{Name: "jvm.thread.count", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: pts}}}}}}}}})
		resp, err := http.Post(ts.url+"/v1/metrics", "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("post: %d", resp.StatusCode)
		}
	}
	for i := range otlpin.MaxPendingApps + 6 {
		post(fmt.Sprintf("app-made-up-%03d", i), 2)
	}
	post("app-20200706201101-0003", otlpin.MaxSeriesPerApp+5)
	samples := func(app string) int {
		got, err := ts.st.Samples(app)
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	if n := samples("app-made-up-000"); n != 2 {
		t.Errorf("a pending application: %d samples, want 2", n)
	}
	if n := samples(fmt.Sprintf("app-made-up-%03d", otlpin.MaxPendingApps+1)); n != 0 {
		t.Errorf("an application past the pending bound: %d samples, want 0", n)
	}
	if n := samples("app-20200706201101-0003"); n != otlpin.MaxSeriesPerApp {
		t.Errorf("a known application: %d series kept, want %d", n, otlpin.MaxSeriesPerApp)
	}
	_, metrics := ts.get(t, "/metrics")
	for _, want := range []string{`sparkdx_serve_otlp_points_dropped_total{reason="unknown_app"} 12`,
		`sparkdx_serve_otlp_points_dropped_total{reason="series_limit"} 5`, "sparkdx_serve_otlp_pending_apps 64"} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// failingExports is an ExportHealth whose Delta sample writes fail.
type failingExports struct{}

func (failingExports) Problems() []string {
	return []string{"Delta (--delta) agent samples writes fail"}
}
func (failingExports) WriteFailures() (apps, samples, dropped int64) { return 0, 3, 7 }

// TestHealthzWriteFailures: failed store and Delta writes make /healthz
// degraded and are counted in /metrics (issue 32, item 12: during ENOSPC
// /healthz said ok and no metric counted them).
func TestHealthzWriteFailures(t *testing.T) {
	ts := startServerWith(t, t.TempDir(), []string{t.TempDir()}, func(_ *ingest.Config, sc *Config) { sc.Exports = failingExports{} })
	ts.waitIdle(t)
	ts.st.Writes().Record(errors.New("write /data/sparkdx.db: no space left on device"))
	var h struct {
		Status   string   `json:"status"`
		Problems []string `json:"problems"`
	}
	ts.getJSON(t, "/healthz", &h)
	joined := strings.Join(h.Problems, "\n")
	if h.Status != "degraded" || !strings.Contains(joined, "store (--data) writes fail") || !strings.Contains(joined, "no space left") ||
		!strings.Contains(joined, "Delta (--delta) agent samples") {
		t.Errorf("/healthz: %+v, want degraded naming the store and the Delta samples", h)
	}
	_, metrics := ts.get(t, "/metrics")
	for _, want := range []string{"sparkdx_serve_store_write_errors_total 1", `sparkdx_serve_delta_write_errors_total{table="samples"} 3`,
		`sparkdx_serve_delta_write_errors_total{table="apps"} 0`, "sparkdx_serve_delta_samples_dropped_total 7"} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

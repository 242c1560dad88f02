package agent

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/access"
)

// secrets are what the red-team pass of issue 32 read from the agent's
// /snapshot: a Spark JVM's command line with them is written into a copy
// of the fixture node.
var secrets = []string{"wJalrXUtnFEMI-K7MDENG", "changeit-keystore", "hunter2-jdbc"}

func secretNode(t testing.TB) string {
	t.Helper()
	root := copyFixture(t, "node1")
	argv := []string{"/usr/bin/java", "-cp", "/opt/spark/conf/:/opt/spark/jars/*", "-Xmx2g",
		"-Dspark.hadoop.fs.s3a.secret.key=" + secrets[0], "-Djavax.net.ssl.keyStorePassword=" + secrets[1],
		"org.apache.spark.deploy.SparkSubmit", "--deploy-mode", "client",
		"--conf", "spark.jdbc.url=jdbc:postgresql://etl:" + secrets[2] + "@db:5432/x",
		"--class", "org.apache.spark.examples.SparkPi", "spark-internal"}
	if err := os.WriteFile(filepath.Join(root, "proc", "200", "cmdline"), []byte(strings.Join(argv, "\x00")+"\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestNoSecretsServed: the command line is kept and served redacted in
// the snapshot, the events after the process exits, and the JSON of
// --once (issue 32, item 1).
func TestNoSecretsServed(t *testing.T) {
	root := secretNode(t)
	a := fixtureAgent(t, root, Config{})
	s := sample(t, a)
	var b bytes.Buffer
	s.WriteJSON(&b)
	if !strings.Contains(b.String(), "spark.hadoop.fs.s3a.secret.key=*********(redacted)") ||
		!strings.Contains(b.String(), "jdbc:postgresql://etl:*********(redacted)@db") {
		t.Errorf("the driver's command line is not there redacted:\n%.2000s", b.String())
	}
	// The driver exits: its last sample goes into the exit event.
	if err := os.RemoveAll(filepath.Join(root, "proc", "200")); err != nil {
		t.Fatal(err)
	}
	sample(t, a)
	h := a.HTTPHandler(HTTPConfig{})
	for _, p := range []string{"/snapshot", "/events", "/metrics"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		b.Write(rec.Body.Bytes())
	}
	if !strings.Contains(b.String(), `"type": "process-exit"`) && !strings.Contains(b.String(), `"type":"process-exit"`) {
		t.Errorf("no exit event for the driver")
	}
	for _, sec := range secrets {
		if strings.Contains(b.String(), sec) {
			t.Errorf("the agent serves %q", sec)
		}
	}
}

// TestHTTPAccess: with a token, every path answers 401 without it; a Host
// outside the allowlist gets 403; only GET and HEAD are served.
func TestHTTPAccess(t *testing.T) {
	a := fixtureAgent(t, filepath.Join("testdata", "node1"), Config{})
	sample(t, a)
	hosts, _ := access.NewHosts("127.0.0.1:9877", nil)
	h := a.HTTPHandler(HTTPConfig{Token: "s3cret", Hosts: hosts})
	for _, c := range []struct {
		method, path, host, auth string
		want                     int
	}{
		{"GET", "/snapshot", "127.0.0.1:9877", "", 401},
		{"GET", "/metrics", "127.0.0.1:9877", "Bearer wrong", 401},
		{"GET", "/snapshot", "127.0.0.1:9877", "Bearer s3cret", 200},
		{"GET", "/events", "localhost:9877", "Bearer s3cret", 200},
		{"GET", "/metrics", "10.1.2.3:9877", "Bearer s3cret", 200},
		{"GET", "/snapshot", "evil.example.com:9877", "Bearer s3cret", 403},
		{"POST", "/snapshot", "127.0.0.1:9877", "Bearer s3cret", 405},
		{"GET", "/nothing", "127.0.0.1:9877", "Bearer s3cret", 404},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		req.Host = c.host
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s %s Host %s %q: got %d, want %d", c.method, c.path, c.host, c.auth, rec.Code, c.want)
		}
		if c.want != 200 && bytes.Contains(rec.Body.Bytes(), []byte("SparkSubmit")) {
			t.Errorf("%s %s: refused, yet shows a command line", c.method, c.path)
		}
	}
}

// FuzzAgentHTTP sends the agent any method, path, query, Host and
// Authorization: nothing panics, a request without the token or from a
// Host not allowed learns nothing, and no answer holds a secret of the
// command lines.
func FuzzAgentHTTP(f *testing.F) {
	f.Add(byte(0), "/snapshot", "", "127.0.0.1:9877", "Bearer s3cret")
	f.Add(byte(0), "/events", "x=1", "localhost", "bearer s3cret")
	f.Add(byte(1), "/metrics", "", "evil.example.com", "Bearer s3cret")
	f.Add(byte(2), "//snapshot/../metrics", "a=%zz", "", "")
	a := fixtureAgent(f, secretNode(f), Config{})
	if _, err := a.Sample(context.Background()); err != nil {
		f.Fatal(err)
	}
	hosts, _ := access.NewHosts("127.0.0.1:9877", nil)
	h := a.HTTPHandler(HTTPConfig{Token: "s3cret", Hosts: hosts})
	methods := []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"}
	f.Fuzz(func(t *testing.T, method byte, path, query, host, auth string) {
		u, err := url.Parse("http://x" + path)
		if err != nil || !strings.HasPrefix(path, "/") || u.Host != "x" {
			return
		}
		u.RawQuery = query
		req := httptest.NewRequest(methods[int(method)%len(methods)], "/", nil)
		req.URL, req.Host, req.RequestURI = u, host, u.RequestURI()
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.String()
		if !access.Bearer(req, "s3cret", "") || !hosts.Allowed(host) {
			if rec.Code != http.StatusUnauthorized && rec.Code != http.StatusForbidden {
				t.Fatalf("%s %s Host %q Authorization %q: got %d, want 401 or 403", req.Method, path, host, auth, rec.Code)
			}
			if strings.Contains(body, "java") {
				t.Fatalf("a refused request reads %.200s", body)
			}
		}
		for _, s := range secrets {
			if strings.Contains(body, s) {
				t.Fatalf("%s %s shows %q", req.Method, path, s)
			}
		}
	})
}

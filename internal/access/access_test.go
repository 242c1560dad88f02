package access

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestHosts(t *testing.T) {
	h, err := NewHosts("127.0.0.1:18080", []string{"sparkdx.example.com", ".svc.cluster.local", "peer-1:18080"})
	if err != nil {
		t.Fatal(err)
	}
	local, err := NewHosts("spark-node-7:9877", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		hosts *Hosts
		host  string
		want  bool
	}{
		{h, "localhost:18080", true},
		{h, "LOCALHOST.:18080", true},
		{h, "app.localhost", true},
		{h, "127.0.0.1:18080", true},
		{h, "[::1]:18080", true},
		{h, "10.1.2.3:9877", true}, // an address is no rebinding
		{h, "sparkdx.example.com", true},
		{h, "sparkdx.ns.svc.cluster.local:18080", true},
		{h, "peer-1", true},
		{h, "", true},
		{h, "evil.example.com:18080", false},
		{h, "sparkdx.example.com.evil.net", false},
		{h, "svc.cluster.local.evil.net", false},
		{h, "localhost.evil.net", false},
		{local, "spark-node-7:9877", true},
		{local, "spark-node-8:9877", false},
	} {
		if got := c.hosts.Allowed(c.host); got != c.want {
			t.Errorf("Allowed(%q) = %v, want %v", c.host, got, c.want)
		}
	}
	any, _ := NewHosts("127.0.0.1:1", []string{"*"})
	if !any.Allowed("evil.example.com") {
		t.Error(`"*" should allow any host`)
	}
	if _, err := NewHosts("", []string{"http://x/"}); err == nil {
		t.Error("a URL as an allowed host: want an error")
	}
}

func TestCheck(t *testing.T) {
	h, _ := NewHosts("127.0.0.1:1", nil)
	r := httptest.NewRequest("GET", "http://evil.example.com/snapshot", nil)
	w := httptest.NewRecorder()
	if !h.Check(w, r) || w.Code != http.StatusForbidden {
		t.Errorf("got refused=%v %d, want a 403", !h.Allowed(r.Host), w.Code)
	}
}

func TestBearer(t *testing.T) {
	for _, c := range []struct {
		auth, cookie string
		want         bool
	}{
		{"Bearer s3cret", "", true},
		{"bearer  s3cret ", "", true},
		{"Bearer wrong", "", false},
		{"Basic s3cret", "", false},
		{"", "", false},
		{"", "s3cret", true},
		{"", "wrong", false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		if c.cookie != "" {
			r.AddCookie(&http.Cookie{Name: "tok", Value: c.cookie})
		}
		if got := Bearer(r, "s3cret", "tok"); got != c.want {
			t.Errorf("Bearer(%q, cookie %q) = %v, want %v", c.auth, c.cookie, got, c.want)
		}
	}
	if !Bearer(httptest.NewRequest("GET", "/", nil), "", "") {
		t.Error("no token configured: want every request allowed")
	}
}

func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "t")
	os.WriteFile(ok, []byte(" s3cret\n"), 0o600)
	empty := filepath.Join(dir, "e")
	os.WriteFile(empty, []byte("\n"), 0o600)
	if tok, err := ReadToken(ok); tok != "s3cret" || err != nil {
		t.Errorf("got %q, %v", tok, err)
	}
	for _, p := range []string{empty, filepath.Join(dir, "none")} {
		if _, err := ReadToken(p); err == nil {
			t.Errorf("%s: want an error", p)
		}
	}
}

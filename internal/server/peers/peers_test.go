package peers

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/shard"
)

func TestAppIDOfPath(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/apps/app-1", "app-1"},
		{"/apps/app-1/stages/3/0", "app-1"},
		{"/api/v1/applications/local-1/2/jobs", "local-1"},
		{"/api/v1/applications/", ""},
		{"/api/v1/applications", ""},
		{"/api/sparkdx/v1/apps/app-1/report", "app-1"},
		{"/api/sparkdx/v1/apps", ""},
		{"/api/v1/version", ""},
		{"/", ""},
		{"/v1/metrics", ""},
	} {
		if got := appIDOfPath(c.path); got != c.want {
			t.Errorf("appIDOfPath(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestPeersValidate(t *testing.T) {
	two := shard.Spec{Index: 0, Count: 2}
	for _, c := range []struct {
		name string
		p    Config
		ok   bool
	}{
		{"none", Config{}, true},
		{"shard without peers", Config{Shard: two}, true},
		{"one per shard", Config{Shard: two, URLs: []string{"http://a:1", "https://b"}}, true},
		{"too few", Config{Shard: two, URLs: []string{"http://a:1"}}, false},
		{"not a URL", Config{Shard: two, URLs: []string{"http://a:1", "b:80"}}, false},
		{"no host", Config{Shard: two, URLs: []string{"http://a:1", "http://"}}, false},
		{"bad shard", Config{Shard: shard.Spec{Index: 2, Count: 2}}, false},
	} {
		if err := c.p.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: got %v, want ok %v", c.name, err, c.ok)
		}
	}
}

package server

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRecipePages: an app page links each finding to its recipe, and serve
// renders that recipe from the binary; an unknown recipe is a 404.
func TestRecipePages(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(ts.url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// local-1422981780767 fails a job: a task-failures finding.
	code, page := get("/apps/local-1422981780767")
	if code != http.StatusOK {
		t.Fatalf("app page: %d", code)
	}
	m := regexp.MustCompile(`href="(/recipes/[^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("app page links no recipe:\n%.2000s", page)
	}
	href := strings.ReplaceAll(m[1], "&amp;", "&")
	if href != "/recipes/troubleshoot/slow-spark-jobs.md?section=task-failures" {
		t.Errorf("got recipe link %s, want task-failures' section", href)
	}
	code, page = get(href)
	if code != http.StatusOK || !strings.Contains(page, "## task-failures") || !strings.Contains(page, `class="howto"`) {
		t.Errorf("recipe page: %d\n%.1000s", code, page)
	}
	if code, _ := get("/recipes/troubleshoot/slow-spark-jobs.md?section=no-such-section"); code != http.StatusNotFound {
		t.Errorf("unknown section: %d, want 404", code)
	}
	if code, _ := get("/recipes/../../go.mod"); code != http.StatusNotFound && code != http.StatusMovedPermanently {
		t.Errorf("path outside the recipes: %d, want 404 (or the mux's redirect)", code)
	}
}

package historyapi

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestErrorResponses checks the HistoryServerSuite "response codes on bad
// paths" oracle.
func TestErrorResponses(t *testing.T) {
	api := loadDir(t, sparktest.Path(t, "spark-events"))
	cases := []struct {
		path   string
		status int
		msg    string // "" when the suite does not check the text
	}{
		{"applications/foobar", 404, "unknown app: foobar"},
		{"applications/local-1422981780767/stages/12345", 404, "unknown stage: 12345"},
		{"applications/local-1422981780767/stages/1/1", 404, "unknown attempt for stage 1.  Found attempts: [0]"},
		{"applications/local-1422981780767/stages/flimflam", 404, ""},
		{"applications/local-1430917381534/stages/0/0/taskSummary?quantiles=foo,0.1", 400,
			`Bad value for parameter "quantiles".  Expected a double, got "foo"`},
		{"foobar", 404, ""},
		// Below an application the History Server needs the exact attempt.
		{"applications/foobar/jobs", 404, "no such app: foobar"},
		{"applications/local-1426533911241/jobs", 404, "no such app: local-1426533911241"},
		{"applications/local-1426533911241/3/jobs", 404, "no such app: local-1426533911241/3"},
		{"applications/local-1422981780767/jobs/99", 404, "unknown job: 99"},
		{"applications/local-1422981780767/storage/rdd/7", 404, "no rdd found w/ id 7"},
		{"applications?minDate=yesterday", 400, "Couldn't parse date: yesterday"},
		{"applications/local-1426533911241/3", 404, "unknown app local-1426533911241, attempt 3"},
		{"applications/local-1426533911241/2", 200, ""},
		{"applications/local-1430917381534/stages/0/0/taskSummary?quantiles=-1,NaN,2", 200, ""},
		{"applications/app-20200706201101-0003/stages/2/0?withSummaries=true&quantiles=-0.5,1.5", 200, ""},
		// sparkdx's bounds on query-driven sizes (issue 32, item 3): the
		// History Server has none.
		{"applications/app-20200706201101-0003/stages?withSummaries=true&quantiles=" + strings.Repeat("0.5,", MaxQuantiles) + "1", 400,
			`Bad value for parameter "quantiles": 101 values, at most 100`},
		{"applications/local-1430917381534/stages/0/0/taskSummary?quantiles=" + strings.Repeat("0.5,", MaxQuantiles-1) + "1", 200, ""},
		// A length past it is refused only when the page would hold
		// more than MaxLength items (checkPage): spark-history-cli asks
		// /sql?length=100000 of every application.
		{"applications/local-1430917381534/stages/0/0/taskList?length=10001", 200, ""},
		{"applications/local-1430917381534/sql?length=100000", 200, ""},
		{"applications/local-1430917381534/stages/0/0/taskList?length=10000", 200, ""},
	}
	passed, failed := 0, 0
	for _, c := range cases {
		ok := t.Run(c.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			api.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/"+c.path, nil))
			if rec.Code != c.status {
				t.Errorf("got status %d, want %d (body %q)", rec.Code, c.status, rec.Body.String())
			}
			if got := string(bytes.TrimSpace(rec.Body.Bytes())); c.msg != "" && got != c.msg {
				t.Errorf("got message %q, want %q", got, c.msg)
			}
		})
		if ok {
			passed++
		} else {
			failed++
		}
	}
	t.Logf("%d passed, %d failed", passed, failed)
}

// TestLogsZip checks the download tests: the zip holds the attempts' files
// byte for byte.
func TestLogsZip(t *testing.T) {
	dir := sparktest.Path(t, "spark-events")
	api := loadDir(t, dir)
	cases := []struct {
		path  string
		files []string
	}{
		{"applications/local-1430917381535/logs", []string{"local-1430917381535_1", "local-1430917381535_2"}},
		{"applications/local-1430917381535/1/logs", []string{"local-1430917381535_1"}},
		{"applications/local-1430917381535/2/logs", []string{"local-1430917381535_2"}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			api.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/"+c.path, nil))
			if rec.Code != 200 {
				t.Fatalf("got status %d, want 200: %s", rec.Code, rec.Body.String())
			}
			zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(rc)
				rc.Close()
				want, err := os.ReadFile(filepath.Join(dir, f.Name))
				if err != nil {
					t.Fatalf("zip entry %s: %v", f.Name, err)
				}
				if !bytes.Equal(body, want) {
					t.Errorf("zip entry %s: content differs from the log file", f.Name)
				}
				got[f.Name] = true
			}
			if len(got) != len(c.files) {
				t.Errorf("got %d entries, want %d", len(got), len(c.files))
			}
			for _, f := range c.files {
				if !got[f] {
					t.Errorf("zip lacks %s", f)
				}
			}
		})
	}
}

// TestXSSNameUnescaped: the JSON carries the name as written (SPARK-54857).
func TestXSSNameUnescaped(t *testing.T) {
	api := loadDir(t, sparktest.Path(t, "spark-events"))
	v, err := api.Get("applications/local-1766844910796")
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Obj)
	if got, want := o.Get("name"), "<script>alert('XSS')</script>"; got != want {
		t.Errorf("got name %v, want %v", got, want)
	}
	att := o.Get("attempts").([]any)[0].(*Obj)
	if got, want := att.Get("sparkUser"), "<script>alert('XSS')</script>"; got != want {
		t.Errorf("got sparkUser %v, want %v", got, want)
	}
}

// TestCheckPage: a page is refused when it would hold more than
// MaxLength items, whatever length asked for it.
func TestCheckPage(t *testing.T) {
	for _, c := range []struct {
		length, offset, n int
		refused           bool
	}{
		{20, 0, 1_000_000, false},
		{MaxLength, 0, 1_000_000, false},
		{100_000, 0, 30, false},
		{100_000, 0, MaxLength, false},
		{100_000, 0, MaxLength + 1, true},
		{100_000, 1, MaxLength + 1, false},
		{100_000, -5, MaxLength, false},
	} {
		if got := checkPage(c.length, c.offset, c.n) != nil; got != c.refused {
			t.Errorf("checkPage(%d, %d, %d) refused %v, want %v", c.length, c.offset, c.n, got, c.refused)
		}
	}
}

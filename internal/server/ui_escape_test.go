package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// hostile is markup that runs a script if a page puts it into HTML
// unescaped: the image fails to load and its handler opens a dialog, which
// the Chromium driver reports.
const hostile = `<img src=x onerror=alert(document.domain)>"'&`

// hostileLog writes a real Spark log with every text a user or the
// environment controls replaced by markup: the application's name, job
// descriptions and group, stage names and details, SQL descriptions and
// plans, a property's value, task failure messages and stack traces, and
// an executor's removal reason and log links.
func hostileLog(t *testing.T, src, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	plain, err := dec.DecodeAll(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimRight(plain, "\n"), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		poison(ev)
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	dst := filepath.Join(dir, filepath.Base(filepath.Dir(filepath.Dir(src)))+"-"+strings.TrimSuffix(filepath.Base(src), ".zstd"))
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// poison rewrites the free-text fields of one listener event.
func poison(ev map[string]any) {
	set := func(m any, keys ...string) {
		if o, ok := m.(map[string]any); ok {
			for _, k := range keys {
				if s, ok := o[k].(string); ok {
					o[k] = hostile + s
				}
			}
		}
	}
	stage := func(m any) {
		set(m, "Stage Name", "Details")
	}
	switch ev["Event"] {
	case "SparkListenerApplicationStart":
		set(ev, "App Name")
	case "SparkListenerEnvironmentUpdate":
		if props, ok := ev["Spark Properties"].(map[string]any); ok {
			props["spark.sparkdx.note"] = hostile
		}
	case "SparkListenerJobStart":
		if props, ok := ev["Properties"].(map[string]any); ok {
			props["spark.job.description"] = hostile
			props["spark.jobGroup.id"] = hostile
		}
		if infos, ok := ev["Stage Infos"].([]any); ok {
			for _, s := range infos {
				stage(s)
			}
		}
	case "SparkListenerStageSubmitted", "SparkListenerStageCompleted":
		stage(ev["Stage Info"])
		set(ev["Stage Info"], "Failure Reason")
	case "SparkListenerTaskEnd":
		set(ev["Task End Reason"], "Description", "Full Stack Trace", "Class Name", "Reason")
	case "SparkListenerExecutorRemoved":
		set(ev, "Removed Reason")
	case "SparkListenerExecutorAdded":
		// A log link is a URL the page puts in an href: a script one must
		// not become a live link.
		if info, ok := ev["Executor Info"].(map[string]any); ok {
			info["Log Urls"] = map[string]any{"stdout": "javascript:alert(document.domain)", "stderr": hostile}
		}
	case "SparkListenerJobEnd":
		if r, ok := ev["Job Result"].(map[string]any); ok {
			set(r["Exception"], "Message")
		}
	case "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart":
		set(ev, "description", "details", "physicalPlanDescription")
		var walk func(p any)
		walk = func(p any) {
			o, ok := p.(map[string]any)
			if !ok {
				return
			}
			set(o, "nodeName", "simpleString")
			if kids, ok := o["children"].([]any); ok {
				for _, k := range kids {
					walk(k)
				}
			}
		}
		walk(ev["sparkPlanInfo"])
	}
}

// TestHostileTextEscapedEverywhere crawls every page reachable by links
// from the fleet page over two real Spark applications whose user- and
// environment-controlled text is markup (a failed PySpark app and an SQL
// app), and checks each page keeps it text: never in the HTML unescaped,
// and in headless Chromium no script runs, nothing logs an error, and the
// page fits 1280 px.
func TestHostileTextEscapedEverywhere(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"python-exception", "sql-aqe"} {
		logs, _ := filepath.Glob("../../testdata/scenarios/" + s + "/spark-3.5.9/*.zstd")
		if len(logs) != 1 {
			t.Fatalf("scenario %s: %d logs", s, len(logs))
		}
		hostileLog(t, logs[0], dir)
	}
	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)

	// Crawl: every same-site link, once; task pages beyond the first few of
	// a stage add nothing the first ones do not.
	href := regexp.MustCompile(`href="(/[^"#]*)`)
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	tasks := 0
	for len(queue) > 0 && len(seen) < 400 {
		p := queue[0]
		queue = queue[1:]
		code, body := ts.get(t, p)
		if code != 200 {
			t.Errorf("GET %s: %d", p, code)
			continue
		}
		if bytes.Contains(body, []byte("<img src=x")) {
			i := bytes.Index(body, []byte("<img src=x"))
			t.Errorf("GET %s: hostile markup unescaped: …%s…", p, body[max(0, i-80):min(len(body), i+60)])
		}
		for _, m := range href.FindAllSubmatch(body, -1) {
			u := strings.ReplaceAll(string(m[1]), "&amp;", "&")
			if seen[u] || strings.HasPrefix(u, "/api/") || strings.HasPrefix(u, "/static/") || strings.HasPrefix(u, "/recipes/") {
				continue
			}
			if strings.Contains(u, "/tasks/") {
				if tasks >= 6 {
					continue
				}
				tasks++
			}
			seen[u] = true
			queue = append(queue, u)
		}
	}
	pages := make([]string, 0, len(seen))
	for p := range seen {
		pages = append(pages, p)
	}
	sort.Strings(pages)
	// Every kind of page must have been reached by links, or the crawl
	// proves nothing about it.
	for _, kind := range []string{`^/$`, `^/apps/[^/]+$`, `/jobs$`, `/jobs/\d+$`, `/stages/\d+/\d+$`, `/tasks/\d+$`,
		`/executors$`, `/environment$`, `/sql$`, `/sql/\d+$`, `^/compare`, `^/jobs$`, `^/jobs/[^/]+$`} {
		re := regexp.MustCompile(kind)
		n := 0
		for _, p := range pages {
			if re.MatchString(p) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no page matching %s reached from the fleet page (crawled %d pages)", kind, len(pages))
		}
	}
	t.Logf("crawled %d pages", len(pages))

	// The escaped text must still be there as text: the app page shows the
	// name, a stage page the stage name.
	_, body := ts.get(t, "/")
	if !bytes.Contains(body, []byte("&lt;img src=x onerror=alert(document.domain)&gt;")) {
		t.Errorf("fleet page: the hostile app name is not shown as text")
	}

	bin := sparktest.Program(t, "chromium")
	c := sparktest.StartPage(t, bin, 1280, 900)
	logLinks := 0
	for _, p := range pages {
		c.Navigate(ts.url + p)
		if n := c.EvalInt(`document.querySelectorAll("img[src=x]").length`); n != 0 {
			t.Errorf("%s: %d hostile img elements in the DOM", p, n)
		}
		if n := c.EvalInt(`document.querySelectorAll('a[href^="javascript:" i]').length`); n != 0 {
			t.Errorf("%s: %d links run a script", p, n)
		}
		if strings.HasSuffix(p, "/executors") {
			logLinks += c.EvalInt(`document.querySelectorAll("#executor-list td:last-child a").length`)
		}
		c.CheckFits(p, 1280)
	}
	if logLinks == 0 {
		t.Errorf("no executor log link shown: the hostile ones were not checked")
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// retentionDump runs internal/jvm/hprof/testdata/Retention.java (a static
// chain of 300 nodes with 4 KiB each, a thread local's map, weakly
// referenced objects) on the JDK on PATH and dumps its live heap.
func retentionDump(t *testing.T) string {
	t.Helper()
	javac, java, jcmd := sparktest.Program(t, "javac"), sparktest.Program(t, "java"), sparktest.Program(t, "jcmd")
	dir := t.TempDir()
	if out, err := exec.Command(javac, "-d", dir, "../../internal/jvm/hprof/testdata/Retention.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command(java, "-cp", dir, "Retention", "300", "4096", "50", "20000", "100")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 || f[0] != "ready" {
		t.Fatalf("Retention: got %q (%v), want \"ready PID\"", line, err)
	}
	dump := filepath.Join(dir, "retention.hprof")
	if out, err := exec.Command(jcmd, f[1], "GC.heap_dump", dump).CombinedOutput(); err != nil {
		t.Fatalf("jcmd GC.heap_dump: %v\n%s", err, out)
	}
	return dump
}

func TestHeapRetained(t *testing.T) {
	sparktest.Live(t)
	dump := retentionDump(t)

	code, out, errOut := runHeapCLI(t, "heap", "--retained", "--top", "5", dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`who holds the heap: \d+ of \d+ objects reachable from \d+ GC roots`),
		// The static chain: 300 x (24-byte node + 4112-byte array) = 1.2 MiB.
		regexp.MustCompile(`(?m)^ +1 +1\.2 MiB .* class Retention 0x[0-9a-f]+$`),
		// Every step names its reference: the static field that holds
		// the chain, and the launcher's static field holding the class.
		regexp.MustCompile(`holds +1\.2 MiB  \.static chain → Retention\$Node 0x`),
		regexp.MustCompile(`path: \[system class\] class sun\.launcher\.LauncherHelper \.static appClass → class Retention\n`),
		// The thread local's map of 50 x 20 KB arrays under the thread holding it.
		regexp.MustCompile(`(?m)^ +2 +9\d\d\.\d KiB .* java\.lang\.Thread 0x[0-9a-f]+\n +path: \[thread\] java\.lang\.Thread\n +holds +9\d\d\.\d KiB  \.threadLocals → java\.lang\.ThreadLocal\$ThreadLocalMap`),
		regexp.MustCompile(`retained by top-level dominator class:`),
		regexp.MustCompile(`largest objects by holder`),
	} {
		if !want.MatchString(out) {
			t.Errorf("text output lacks %s:\n%s", want, out)
		}
	}

	code, out, errOut = runHeapCLI(t, "heap", "--format", "json", "--retained", "--top", "5", dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Retained struct {
			Reachable  int64 `json:"reachable"`
			Dominators []struct {
				Class    string `json:"class"`
				Retained int64  `json:"retained"`
				Path     []struct {
					Class string `json:"class"`
					Field string `json:"field"`
				} `json:"path"`
				Children []struct {
					Class    string `json:"class"`
					Retained int64  `json:"retained"`
					Field    string `json:"field"`
				} `json:"children"`
			} `json:"dominators"`
		} `json:"retained"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("bad JSON: %v", err)
	}
	if doc.Schema != "sparkdx.heap/v1" || doc.Retained.Reachable == 0 || len(doc.Retained.Dominators) != 5 {
		t.Fatalf("got schema %q, %d reachable, %d dominators; want sparkdx.heap/v1 with 5 dominators", doc.Schema, doc.Retained.Reachable, len(doc.Retained.Dominators))
	}
	d := doc.Retained.Dominators[0]
	if d.Class != "class Retention" || len(d.Children) == 0 || d.Children[0].Class != "Retention$Node" || d.Children[0].Retained != 300*(24+4112) || d.Children[0].Field != "static chain" {
		t.Errorf("first dominator %s with children %+v, want class Retention holding the chain head by static chain, retaining %d", d.Class, d.Children, 300*(24+4112))
	}

	code, out, errOut = runHeapCLI(t, "heap", "--format", "html", "--top", "5", dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "<details>") || !strings.Contains(out, "class Retention") {
		t.Errorf("HTML page lacks the dominator tree")
	}
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "@import"} {
		if strings.Contains(out, bad) {
			t.Errorf("HTML page is not self-contained: has %q", bad)
		}
	}

	// A dump cut short: the histogram of what was read, and a warning
	// saying why there is no dominator tree.
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.hprof")
	if err := os.WriteFile(cut, data[:len(data)*3/5], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "html"} {
		code, out, errOut = runHeapCLI(t, "heap", "--retained", "--format", format, cut)
		if code != 0 || !strings.Contains(errOut, "dump ends inside a record; the dominator tree needs every object") ||
			!strings.Contains(out, "[B") {
			t.Errorf("%s of a cut dump: exit %d, stderr %q; want exit 0, the histogram and a warning", format, code, errOut)
		}
	}
}

// TestHeapHTMLChromium opens the --format html page in headless Chromium:
// no console error or failed load, the dominator tree unfolds by clicking,
// nothing wider than a 1280-pixel window.
func TestHeapHTMLChromium(t *testing.T) {
	sparktest.Live(t)
	chromium := sparktest.Program(t, "chromium")
	dump := retentionDump(t)
	code, out, errOut := runHeapCLI(t, "heap", "--format", "html", "--top", "5", dump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page := filepath.Join(t.TempDir(), "heap.html")
	if err := os.WriteFile(page, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	c := sparktest.StartPage(t, chromium, 1280, 900)
	c.Navigate("file://" + page)
	c.CheckClean("heap page")
	if n := c.EvalInt(`document.querySelectorAll("body > details").length`); n != 5 {
		t.Errorf("got %d top dominators in the tree, want 5", n)
	}
	if n := c.EvalInt(`document.querySelectorAll("body > details[open]").length`); n != 0 {
		t.Errorf("got %d dominators open on load, want the tree folded", n)
	}
	c.Eval(`document.querySelector("body > details > summary").click()`)
	if got := c.EvalString(`(() => { const d = document.querySelector("body > details"); return d.open + " " + d.querySelector(":scope > details > summary").innerText })()`); !strings.HasPrefix(got, "true ") || !strings.Contains(got, "Retention$Node") {
		t.Errorf("after a click on the first dominator: %q, want it open showing the chain head Retention$Node", got)
	}
	if w := c.EvalInt(`document.documentElement.scrollWidth`); w > 1280 {
		t.Errorf("page is %d px wide in a 1280 px window: clipped", w)
	}
	c.Screenshot("heap-retained")
	c.CheckClean("heap page after unfolding")
}

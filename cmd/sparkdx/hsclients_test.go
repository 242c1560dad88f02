package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestHistoryServerClients runs two clients of the History Server REST API
// from PyPI, spark-history-cli (every command, text and --json) and
// Kubeflow's MCP server for the History Server (every tool, called over
// MCP), against `sparkdx serve` and Spark 4.3's History Server over the
// same logs, and requires the same output from both, but for the
// differences clientDifferences lists with their reasons. On the shared
// spark-events every command and tool runs for every application; on the
// scenario logs (dozens of applications of a dozen shapes) for the first
// application of each shape (testdata/hsclients/plan.py: attempts, job,
// stage and query statuses, retried stages, failed and killed tasks, RDDs,
// removed executors), the listings over all of them.
func TestHistoryServerClients(t *testing.T) {
	line := referenceLine(t)
	cli := sparktest.PythonEnv(t, "spark-history-cli")
	mcp := sparktest.PythonEnv(t, "mcp-apache-spark-history-server")
	bin := buildSparkdx(t)
	spark := sparktest.Spark(t)
	shared, _ := filepath.Glob(filepath.Join(spark, "spark-events", "*"))
	// The scenario logs Spark 4.3 wrote: the 3.5 ones take the same code
	// paths, and each client run costs minutes.
	scen, _ := filepath.Glob("../../testdata/scenarios/*/spark-4.*/app-*")
	for _, set := range []struct {
		name  string
		paths []string
		plan  []string // the drivers' options
	}{{"spark-events", shared, nil}, {"scenarios", scen, []string{"--one-per-shape"}}} {
		t.Run(set.name, func(t *testing.T) {
			// The two sets run side by side, each with its own History
			// Server and serve: the clients spend most of their time
			// waiting on the servers' answers (about 6 minutes a set on a
			// loaded machine), one after the other the package's longest.
			t.Parallel()
			dir := t.TempDir()
			for _, p := range set.paths {
				if err := copyLog(p, filepath.Join(dir, filepath.Base(p))); err != nil {
					t.Fatal(err)
				}
			}
			apps, err := replay.LoadApps(context.Background(), dir, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			hs := sparktest.StartHistoryServer(t, line, dir, len(apps))
			serve := startServe(t, bin, dir, t.TempDir(), "--serve-raw-logs")
			waitApps(t, serve, hs.URL)
			servers := append(set.plan, "hs="+hs.URL, "sparkdx="+serve.url)
			t.Run("spark-history-cli", func(t *testing.T) {
				compareClient(t, runDriver(t, cli, "cli_driver.py", servers))
			})
			t.Run("mcp-apache-spark-history-server", func(t *testing.T) {
				recs := runDriver(t, mcp, "mcp_driver.py", servers)
				checkAllTools(t, recs)
				compareClient(t, recs)
			})
		})
	}
}

// copyLog copies a log file or a rolling log's directory.
func copyLog(src, dst string) error {
	if st, err := os.Stat(src); err != nil || st.IsDir() {
		if err != nil {
			return err
		}
		return os.CopyFS(dst, os.DirFS(src))
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// referenceLine is the Spark line whose History Server sparkdx follows.
func referenceLine(t *testing.T) sparktest.SparkLine {
	for _, l := range sparktest.SparkLines(t) {
		if !strings.HasPrefix(l.Version, "3.") {
			return l
		}
	}
	sparktest.Missing(t, "a Spark 4 line")
	return sparktest.SparkLine{}
}

// waitApps waits until serve lists the applications the History Server lists.
func waitApps(t *testing.T, serve *serveProc, hsURL string) {
	t.Helper()
	var want []any
	hstest.GetJSON(t, hsURL+"/api/v1/applications", &want)
	var got []any
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if status, b, err := hstest.Fetch(serve.url + "/api/v1/applications"); err == nil && status == 200 && json.Unmarshal(b, &got) == nil && len(got) == len(want) {
			serve.waitIdle(t)
			return
		}
	}
	t.Fatalf("sparkdx serve lists %d applications after 120s, the History Server %d\n%s", len(got), len(want), serve.logs)
}

// clientRecord is one line a driver writes: a call's answer from one server.
type clientRecord struct {
	Tools  []string `json:"tools"`
	Call   string   `json:"call"`
	Server string   `json:"server"`
	Exit   int      `json:"exit"`
	Error  bool     `json:"error"`
	Output string   `json:"output"`
	Zip    any      `json:"zip"`
}

// runDriver runs a driver of testdata/hsclients with the virtualenv's python.
func runDriver(t *testing.T, python, driver string, servers []string) []clientRecord {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.jsonl")
	dir, _ := filepath.Abs("testdata/hsclients")
	cmd := exec.Command(python, append([]string{filepath.Join(dir, driver), out}, servers...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "NO_COLOR=1", "TZ=UTC", "HOME="+t.TempDir())
	start := time.Now()
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", driver, err, tail(b, 4000))
	}
	t.Logf("%s took %s", driver, time.Since(start).Round(time.Second))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "plan: ") {
			t.Log(l)
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []clientRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r clientRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", driver, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// checkAllTools requires the MCP driver to have called every tool the
// server lists.
func checkAllTools(t *testing.T, recs []clientRecord) {
	t.Helper()
	called := map[string]bool{}
	var tools []string
	for _, r := range recs {
		if r.Tools != nil {
			tools = r.Tools
		}
		if f := strings.Fields(r.Call); len(f) > 0 {
			called[f[0]] = true
		}
	}
	if len(tools) < 17 {
		t.Errorf("the MCP server lists %d tools, want at least 17: %v", len(tools), tools)
	}
	for _, tool := range tools {
		if !called[tool] {
			t.Errorf("tool %s was not called", tool)
		}
	}
}

// compareClient compares each call's answers from the History Server and
// from sparkdx, printing "N passed, N failed" per command.
func compareClient(t *testing.T, recs []clientRecord) {
	t.Helper()
	byCall := map[string]map[string]clientRecord{}
	var order []string
	for _, r := range recs {
		if r.Call == "" {
			continue
		}
		if byCall[r.Call] == nil {
			byCall[r.Call] = map[string]clientRecord{}
			order = append(order, r.Call)
		}
		byCall[r.Call][r.Server] = r
	}
	type tally struct{ passed, failed, known int }
	per := map[string]*tally{}
	failures := 0
	for _, call := range order {
		want, got := byCall[call]["hs"], byCall[call]["sparkdx"]
		cmd := commandOf(call)
		c := per[cmd]
		if c == nil {
			c = &tally{}
			per[cmd] = c
		}
		g, w := normaliseClient(got), normaliseClient(want)
		alignClock(&g, &w)
		diff := clientDiff(g, w)
		switch {
		case diff == "":
			c.passed++
		case clientDifference(call, diff) != "":
			c.known++
		default:
			c.failed++
			if failures++; failures <= 30 {
				t.Errorf("%s: %s", call, diff)
			}
		}
	}
	cmds := make([]string, 0, len(per))
	for k := range per {
		cmds = append(cmds, k)
	}
	sort.Strings(cmds)
	total := tally{}
	for _, k := range cmds {
		c := per[k]
		t.Logf("%-32s %d passed, %d failed, %d known", k, c.passed, c.failed, c.known)
		total.passed, total.failed, total.known = total.passed+c.passed, total.failed+c.failed, total.known+c.known
	}
	fmt.Printf("%s: %d passed, %d failed (%d with known differences)\n", t.Name(), total.passed, total.failed, total.known)
}

// commandOf names a call's command or tool, without its arguments.
func commandOf(call string) string {
	var words []string
	for _, w := range strings.Fields(call) {
		switch {
		case w == "--json" || w == "-a":
			continue
		case strings.HasPrefix(w, "{"):
			return strings.Join(words, " ")
		case len(words) > 0 && words[len(words)-1] == "-a":
		}
		words = append(words, w)
	}
	if len(words) > 1 && strings.HasPrefix(words[0], "app-") || len(words) > 1 && strings.HasPrefix(words[0], "local-") {
		words = words[1:]
	}
	return words[0]
}

// clientDiff says how sparkdx's answer differs from the History Server's:
// exit code, failure, or the first differing line of the output.
func clientDiff(got, want clientRecord) string {
	switch {
	case got.Server == "":
		return "no answer from sparkdx"
	case got.Exit != want.Exit || got.Error != want.Error:
		return fmt.Sprintf("exit %d error %v, History Server exit %d error %v; got %q, want %q",
			got.Exit, got.Error, want.Exit, want.Error, firstLines(got.Output), firstLines(want.Output))
	case fmt.Sprint(got.Zip) != fmt.Sprint(want.Zip):
		return fmt.Sprintf("zip %v, History Server's %v", got.Zip, want.Zip)
	case got.Output != want.Output:
		g, w := strings.Split(got.Output, "\n"), strings.Split(want.Output, "\n")
		for i := 0; i < len(g) || i < len(w); i++ {
			var gl, wl string
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				return fmt.Sprintf("line %d: got %q, want %q", i+1, clip(gl), clip(wl))
			}
		}
	}
	return ""
}

func firstLines(s string) string {
	return clip(strings.Join(strings.SplitN(s, "\n", 4)[:min(3, strings.Count(s, "\n")+1)], " | "))
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// lastUpdated matches an attempt's lastUpdated as the clients print it
// (JSON and text): for a log still in progress it is when each server read
// the log, so the two differ by the moment each did.
var lastUpdated = regexp.MustCompile(`("lastUpdated(?:Epoch)?"\s*:\s*)("[^"]*"|\d+)|(Last Updated\s*[│|:]?\s*)\S+ ?\S*`)

// responseHeaders matches the HTTP headers the MCP server's client prints
// with an error answer: Jetty's security headers (a fresh nonce each
// answer), Date, Content-Length; not part of the API.
var responseHeaders = regexp.MustCompile(`(?m)^HTTP response headers: .*$`)

func normaliseClient(r clientRecord) clientRecord {
	r.Output = lastUpdated.ReplaceAllString(r.Output, "${1}${3}WHEN")
	r.Output = responseHeaders.ReplaceAllString(r.Output, "HTTP response headers: ...")
	return r
}

// durationLine matches a line printing an executor's total duration (the
// MCP server's summary sums them); ratioLine one the MCP server derives
// from them.
var (
	durationLine = regexp.MustCompile(`^(\s*"(?:totalDuration|total_duration)"\s*:\s*)(\d+)(,?)$`)
	ratioLine    = regexp.MustCompile(`^(\s*"\w+_ratio"\s*:\s*)([0-9.eE+-]+)(,?)$`)
)

// alignClock makes equal the totalDuration lines of got and want that
// differ by less than the clock skew the differential accepts: an executor
// still alive in an unfinished log runs to each server's own now.
func alignClock(got, want *clientRecord) {
	g, w := strings.Split(got.Output, "\n"), strings.Split(want.Output, "\n")
	if len(g) != len(w) {
		return
	}
	for i := range g {
		if mg, mw := durationLine.FindStringSubmatch(g[i]), durationLine.FindStringSubmatch(w[i]); mg != nil && mw != nil {
			a, _ := strconv.ParseInt(mg[2], 10, 64)
			b, _ := strconv.ParseInt(mw[2], 10, 64)
			if d := a - b; d > -30_000 && d < 30_000 {
				g[i] = w[i]
			}
		}
		if mg, mw := ratioLine.FindStringSubmatch(g[i]), ratioLine.FindStringSubmatch(w[i]); mg != nil && mw != nil {
			a, _ := strconv.ParseFloat(mg[2], 64)
			b, _ := strconv.ParseFloat(mw[2], 64)
			if math.Abs(a-b) <= 1e-3*math.Abs(b) {
				g[i] = w[i]
			}
		}
	}
	got.Output = strings.Join(g, "\n")
}

// clientDifference returns why a difference between the clients' output
// from sparkdx and from the History Server is not a bug, or "".
func clientDifference(call, diff string) string {
	for _, k := range clientDifferences {
		if k.call.MatchString(call) && k.diff.MatchString(diff) {
			return k.reason
		}
	}
	return ""
}

var clientDifferences = []struct {
	call, diff *regexp.Regexp
	reason     string
}{}

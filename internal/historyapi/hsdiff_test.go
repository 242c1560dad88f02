package historyapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/historyapi/hstest"
	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// logSet is one directory of event logs served by one History Server: a
// History Server keeps one application per id, so the same application in
// several codecs or forms needs a directory of its own.
type logSet struct {
	name  string
	paths []string // files or rolling directories, copied into the set's directory
}

func logSets(t *testing.T) []logSet {
	spark := sparktest.Spark(t)
	glob := func(pattern string) []string {
		m, _ := filepath.Glob(filepath.Join(spark, pattern))
		return m
	}
	var sets []logSet
	sets = append(sets, logSet{"spark-events", glob("spark-events/*")})
	sets = append(sets, logSet{"sql-core", glob("extra/sql-core-spark-events/*")})
	for _, codec := range []string{"lz4", "lzf", "snappy", "zstd"} {
		sets = append(sets, logSet{"codec-" + codec, glob("compressed/*." + codec)})
	}
	for _, r := range []string{"rolling-lz4", "rolling-zstd"} {
		sets = append(sets, logSet{r, glob("compressed/" + r + "/*")})
	}
	for _, p := range glob("compressed/*.inprogress") {
		sets = append(sets, logSet{"inprogress-" + filepath.Base(p), []string{p}})
	}
	for _, p := range glob("extra/spark-events-broken/*") {
		sets = append(sets, logSet{"broken-" + filepath.Base(p), glob("extra/spark-events-broken/" + filepath.Base(p) + "/*")})
	}
	scen, _ := filepath.Glob("../../testdata/scenarios/*/spark-*/*")
	if len(scen) > 0 {
		sets = append(sets, logSet{"scenarios", scen})
	}
	return sets
}

// TestHistoryServerDifferential serves every shared and scenario log with
// Spark's own History Server of each Spark line and with sparkdx (the
// api's Get, as `sparkdx api`, and its HTTP handler, as `sparkdx serve`),
// asks both every /api/v1 document of every application, and compares them
// after the suite's normalisation. Differences that are not in
// knownDifferences fail the test; each endpoint prints "N passed, N failed".
func TestHistoryServerDifferential(t *testing.T) {
	lines := sparktest.SparkLines(t)
	sets := logSets(t)
	for _, line := range lines {
		t.Run(line.Version, func(t *testing.T) {
			tally := map[string]*count{}
			for _, set := range sets {
				t.Run(set.name, func(t *testing.T) { differential(t, line, set, tally) })
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range tally {
					if !yield(k) {
						return
					}
				}
			})
			total := count{}
			for _, k := range keys {
				c := tally[k]
				t.Logf("Spark %s %-45s %d passed, %d failed, %d known", line.Version, k, c.passed, c.failed, c.known)
				total.passed += c.passed
				total.failed += c.failed
				total.known += c.known
			}
			fmt.Printf("History Server %s differential: %d passed, %d failed (%d documents with known differences)\n",
				line.Version, total.passed, total.failed, total.known)
		})
	}
}

type count struct{ passed, failed, known int }

func differential(t *testing.T, line sparktest.SparkLine, set logSet, tally map[string]*count) {
	dir := t.TempDir()
	for _, p := range set.paths {
		if err := copyTree(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	apps, err := eventlog.LoadApps(context.Background(), dir, eventlog.ReplayOptions{})
	if err != nil {
		t.Fatalf("sparkdx: %v", err)
	}
	api := New(apps)
	srv := httptest.NewServer(api)
	defer srv.Close()
	hs := sparktest.StartHistoryServer(t, line, dir, len(apps))

	for _, path := range endpoints(t, hs.URL) {
		kind := endpointKind(path)
		c := tally[kind]
		if c == nil {
			c = &count{}
			tally[kind] = c
		}
		wantStatus, want := get(t, hs.URL+"/api/v1/"+path)
		gotStatus, got := get(t, srv.URL+"/api/v1/"+path)
		var diffs []string
		if v, err := api.Get(path); err != nil {
			if StatusOf(err) != gotStatus {
				diffs = append(diffs, fmt.Sprintf("api.Get says %d, the handler %d", StatusOf(err), gotStatus))
			}
		} else if d := hstest.Diff(decodeNorm(t, Marshal(v)), decodeNorm(t, got)); len(d) > 0 {
			diffs = append(diffs, "api.Get and the handler differ: "+d[0])
		}
		switch {
		case wantStatus != gotStatus:
			diffs = append(diffs, fmt.Sprintf("status %d, History Server %d (%s)", gotStatus, wantStatus, firstLine(got)))
		case wantStatus == http.StatusOK:
			diffs = append(diffs, hstest.Diff(decodeNorm(t, got), decodeNorm(t, want))...)
		}
		var unknown []string
		for _, d := range diffs {
			if reason := knownDifference(line.Version, path, d); reason == "" {
				unknown = append(unknown, d)
			}
		}
		switch {
		case len(unknown) > 0:
			c.failed++
			if len(unknown) > 5 {
				unknown = append(unknown[:5], fmt.Sprintf("... %d more", len(unknown)-5))
			}
			t.Errorf("%s:\n  %s", path, strings.Join(unknown, "\n  "))
		case len(diffs) > 0:
			c.known++
		default:
			c.passed++
		}
	}
}

// known is a difference between sparkdx and a History Server that is not a
// bug, with its reason (docs/historyserver-differences.md lists them).
type known struct {
	line   string         // Spark version prefix the difference is seen with; "" for all
	path   *regexp.Regexp // the REST path
	diff   *regexp.Regexp // the difference line
	reason string
}

var knownDifferences = []known{
	{"3.5", regexp.MustCompile(`/sql(/\d+)?(\?|$)`), regexp.MustCompile(`\.(queryId|errorMessage|rootExecutionId|modifiedConfigs|desc): got .*, want absent$`),
		"ExecutionData gained queryId, errorMessage, rootExecutionId, modifiedConfigs and the nodes' desc in Spark 4; sparkdx follows Spark 4.3"},
	{"3.5", regexp.MustCompile(`/sql(/\d+)?(\?|$)`), regexp.MustCompile(`^\$(\[\d+\])?\.(nodes|edges)`),
		"Spark 3.5 draws the ResultQueryStage of Spark 4 logs as a node of its own (and a reused subquery's edge twice); sparkdx draws plans as Spark 4.3 does, which the 4.3 History Server checks on every log"},
	{"3.5", regexp.MustCompile(`/sql(\?|$)`), regexp.MustCompile(`^\$: got \d+ elements, want 20$`),
		"Spark 3.5 lists 20 queries unless asked for more (length=20); Spark 4 lists them all"},
	{"3.5", anyPath, regexp.MustCompile(`\.(ConcurrentGCCount|ConcurrentGCTime): got .*, want absent$`),
		"executor metrics ConcurrentGCCount/ConcurrentGCTime were added in Spark 4.0; sparkdx follows Spark 4"},
	{"3.5", anyPath, regexp.MustCompile(`\.(logSourceName|logSourceFullPath|exitCode): got .*, want absent$`),
		"attempt fields added to the History Server's answer in Spark 4 (exitCode in 4.3)"},
	{"3.5", regexp.MustCompile(`/environment$`), regexp.MustCompile(`Properties\[\d+\]\[1\]: got \*{9}\(redacted\), want `),
		"Spark 4's default spark.redaction.regex adds \"credential\"; sparkdx redacts with Spark 4's default"},
	{"3.5", anyPath, regexp.MustCompile(`(shufflePushReadMetrics(Dist)?\.\w+|shuffleCorruptMergedBlockChunks|shuffleMerged\w+)(\[\d+\])?: got [0-9.]+, want 0(\.0)?$`),
		"Spark 3.5 reads the push-based shuffle read metrics of logs written by Spark 3.2+ as 0; Spark 4 and the goldens read them"},
	{"3.5", regexp.MustCompile(`/(taskSummary|stages\?withSummaries=true)`), regexp.MustCompile(`\.(readBytes|totalBlocksFetched)\[\d+\]: got [0-9.]+, want -[0-9.]+$`),
		"Spark 3.5 values the shuffle read totals of an unsuccessful task by its stored fields (-v-1 each); Spark 4 by the true sum"},
}

var anyPath = regexp.MustCompile(``)

// clockSkew is the most two servers' "now" may differ by while both
// answer the same question about a running application.
const clockSkew = 30_000

var totalDuration = regexp.MustCompile(`\.(?:totalDuration|duration): got (\d+), want (\d+)$`)

func knownDifference(version, path, diff string) string {
	// An executor still alive in an unfinished log runs to "now", and the
	// two servers answer at different instants.
	if m := totalDuration.FindStringSubmatch(diff); m != nil {
		got, _ := strconv.ParseInt(m[1], 10, 64)
		want, _ := strconv.ParseInt(m[2], 10, 64)
		if d := got - want; d > -clockSkew && d < clockSkew {
			return "an alive executor's totalDuration, a running query's duration, runs to each server's own now"
		}
	}
	for _, k := range knownDifferences {
		if strings.HasPrefix(version, k.line) && k.path.MatchString(path) && k.diff.MatchString(diff) {
			return k.reason
		}
	}
	return ""
}

// endpoints lists every /api/v1 path (without the prefix) the History
// Server at base answers for its applications.
func endpoints(t *testing.T, base string) []string {
	var apps []struct {
		ID       string `json:"id"`
		Attempts []struct {
			AttemptID string `json:"attemptId"`
		} `json:"attempts"`
	}
	getJSON(t, base+"/api/v1/applications", &apps)
	paths := []string{"applications", "applications?status=completed", "applications?status=running", "applications?limit=1"}
	for _, app := range apps {
		paths = append(paths, "applications/"+app.ID)
		for _, at := range app.Attempts {
			p := "applications/" + app.ID
			if at.AttemptID != "" {
				p += "/" + at.AttemptID
			}
			paths = append(paths, attemptEndpoints(t, base, p)...)
		}
	}
	return paths
}

func attemptEndpoints(t *testing.T, base, app string) []string {
	paths := []string{}
	for _, p := range []string{"jobs", "stages", "stages?details=true", "stages?withSummaries=true", "stages?status=complete",
		"executors", "allexecutors", "storage/rdd", "environment", "allmiscellaneousprocess", "sql", "sql?details=false"} {
		paths = append(paths, app+"/"+p)
	}
	var jobs []struct {
		JobID int `json:"jobId"`
	}
	getJSON(t, base+"/api/v1/"+app+"/jobs", &jobs)
	for _, j := range jobs {
		paths = append(paths, fmt.Sprintf("%s/jobs/%d", app, j.JobID))
	}
	var stages []struct {
		StageID   int `json:"stageId"`
		AttemptID int `json:"attemptId"`
	}
	getJSON(t, base+"/api/v1/"+app+"/stages", &stages)
	seen := map[int]bool{}
	for _, s := range stages {
		if !seen[s.StageID] {
			seen[s.StageID] = true
			paths = append(paths, fmt.Sprintf("%s/stages/%d", app, s.StageID))
		}
		sa := fmt.Sprintf("%s/stages/%d/%d", app, s.StageID, s.AttemptID)
		paths = append(paths, sa, sa+"/taskSummary", sa+"/taskSummary?quantiles=0.01,0.5,0.99",
			sa+"/taskList", sa+"/taskList?offset=1&length=3&sortBy=-runtime", sa+"/taskList?sortBy=runtime")
	}
	var sqls []struct {
		ID int `json:"id"`
	}
	if status, _ := get(t, base+"/api/v1/"+app+"/sql"); status == http.StatusOK {
		getJSON(t, base+"/api/v1/"+app+"/sql", &sqls)
	}
	for _, q := range sqls {
		paths = append(paths, fmt.Sprintf("%s/sql/%d", app, q.ID), fmt.Sprintf("%s/sql/%d?planDescription=false", app, q.ID))
	}
	return paths
}

// endpointKind names the endpoint of path with its ids replaced, e.g.
// "applications/{id}/stages/{n}/{n}/taskSummary".
func endpointKind(path string) string {
	p, q, _ := strings.Cut(path, "?")
	parts := strings.Split(p, "/")
	for i := range parts {
		if i == 1 || (i > 1 && isNumber(parts[i])) {
			parts[i] = "{id}"
		}
	}
	k := strings.Join(parts, "/")
	if q != "" {
		k += "?" + q
	}
	return k
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func get(t *testing.T, u string) (int, []byte) {
	t.Helper()
	client := http.Client{Timeout: 60 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return resp.StatusCode, b
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	status, b := get(t, u)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, status, firstLine(b))
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

func decodeNorm(t *testing.T, b []byte) any {
	t.Helper()
	v, err := hstest.Decode(b)
	if err != nil {
		t.Fatalf("decode %q: %v", firstLine(b), err)
	}
	hstest.Normalise(v)
	return v
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// copyTree copies a file or a directory tree.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

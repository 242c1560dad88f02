package historyapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparktest"
)

var (
	loadOnce sync.Map // dir -> *loaded
)

type loaded struct {
	once sync.Once
	apps []*model.App
	err  error
}

// loadDir replays a log directory once per test binary.
func loadDir(t *testing.T, dir string) *API {
	t.Helper()
	v, _ := loadOnce.LoadOrStore(dir, &loaded{})
	l := v.(*loaded)
	l.once.Do(func() { l.apps, l.err = eventlog.LoadApps(context.Background(), dir, eventlog.ReplayOptions{}) })
	if l.err != nil {
		t.Fatalf("load %s: %v", dir, l.err)
	}
	return New(l.apps)
}

type goldenCase struct{ name, url, file string }

// suiteCases reads the (name, URL) list of HistoryServerSuite: the
// authoritative map from each golden file to its REST URL.
func suiteCases(t *testing.T) []goldenCase {
	src, err := os.ReadFile(sparktest.Path(t, "HistoryServerSuite.scala.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	start := strings.Index(s, "val cases = Seq(")
	end := strings.Index(s[start:], "\n  )\n")
	if start < 0 || end < 0 {
		t.Fatal("cases list not found in HistoryServerSuite.scala.txt")
	}
	re := regexp.MustCompile(`"([^"]+)"\s*->\s*"([^"]+)"`)
	nonWord := regexp.MustCompile(`\W`)
	var out []goldenCase
	for _, m := range re.FindAllStringSubmatch(s[start:start+end], -1) {
		out = append(out, goldenCase{name: m[1], url: m[2],
			file: nonWord.ReplaceAllString(m[1], "_") + "_expectation.json"})
	}
	return out
}

func TestHistoryServerGoldens(t *testing.T) {
	cases := suiteCases(t)
	if len(cases) != 60 {
		t.Fatalf("got %d suite cases, want 60", len(cases))
	}
	api := loadDir(t, sparktest.Path(t, "spark-events"))
	runGoldens(t, api, cases, sparktest.Path(t, "HistoryServerExpectations"))
}

func TestHistoricalGoldens(t *testing.T) {
	dir := sparktest.Path(t, "extra", "historical")
	api := loadDir(t, filepath.Join(dir, "spark-events"))
	cases := []goldenCase{
		{"executor list with executor metrics json", "applications/application_1506645932520_24630151/executors",
			"executor_list_with_executor_metrics_json_expectation.json"},
		{"executor list with executor process tree metrics json", "applications/application_1538416563558_0014/executors",
			"executor_list_with_executor_process_tree_metrics_json_expectation.json"},
		{"executor list with executor garbage collection metrics json", "applications/application_1536831636016_59384/1/executors",
			"executor_list_with_executor_garbage_collection_metrics_json_expectation.json"},
	}
	runGoldensMode(t, api, cases, filepath.Join(dir, "HistoryServerExpectations"), true)
}

func runGoldens(t *testing.T, api *API, cases []goldenCase, expDir string) {
	runGoldensMode(t, api, cases, expDir, false)
}

// runGoldensMode compares each case; legacy compares against the 2019
// History Server, whose schema lacked fields added since (isExcluded,
// resourceProfileId, TotalGCTime, ...) and which neither took executor
// peaks from task ends nor reported the driver's duration as the
// application's: legacy ignores fields the golden lacks and the driver's
// totalDuration.
func runGoldensMode(t *testing.T, api *API, cases []goldenCase, expDir string, legacy bool) {
	passed, failed := 0, 0
	for _, c := range cases {
		ok := t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(expDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			v, err := api.Get("/api/v1/" + c.url)
			if err != nil {
				t.Fatalf("GET %s: %v", c.url, err)
			}
			got := Marshal(v)
			diffs := diffJSON(t, normalise(t, got), want)
			if legacy {
				diffs = legacyFilter(diffs)
			}
			if len(diffs) > 0 {
				if len(diffs) > 15 {
					diffs = append(diffs[:15], fmt.Sprintf("... and %d more", len(diffs)-15))
				}
				t.Errorf("GET %s differs from %s:\n%s", c.url, c.file, strings.Join(diffs, "\n"))
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

// normalise applies the suite's clearDynamicFields to a response.
func normalise(t *testing.T, b []byte) []byte {
	v := decodeJSON(t, b)
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "lastUpdatedEpoch":
					x[k] = json.Number("0")
				case "lastUpdated", "logSourceName", "logSourceFullPath":
					x[k] = ""
				default:
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, b)
	}
	return v
}

// diffJSON compares two JSON documents as json4s does: object key order is
// irrelevant, array order matters, and integers differ from doubles.
func diffJSON(t *testing.T, got, want []byte) []string {
	var diffs []string
	var cmp func(path string, g, w any)
	cmp = func(path string, g, w any) {
		switch wv := w.(type) {
		case map[string]any:
			gv, ok := g.(map[string]any)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want object", path, short(g)))
				return
			}
			keys := map[string]bool{}
			for k := range wv {
				keys[k] = true
			}
			for k := range gv {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
				ge, gok := gv[k]
				we, wok := wv[k]
				switch {
				case !gok:
					diffs = append(diffs, fmt.Sprintf("%s.%s: missing, want %v", path, k, short(we)))
				case !wok:
					diffs = append(diffs, fmt.Sprintf("%s.%s: got %v, want absent", path, k, short(ge)))
				default:
					cmp(path+"."+k, ge, we)
				}
			}
		case []any:
			gv, ok := g.([]any)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want array", path, short(g)))
				return
			}
			if len(gv) != len(wv) {
				diffs = append(diffs, fmt.Sprintf("%s: got %d elements, want %d", path, len(gv), len(wv)))
			}
			for i := 0; i < len(gv) && i < len(wv); i++ {
				cmp(fmt.Sprintf("%s[%d]", path, i), gv[i], wv[i])
			}
		case json.Number:
			gv, ok := g.(json.Number)
			if !ok || isDouble(gv) != isDouble(wv) || !sameNumber(gv, wv) {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", path, short(g), wv))
			}
		default:
			if fmt.Sprint(g) != fmt.Sprint(w) {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", path, short(g), short(w)))
			}
		}
	}
	cmp("$", decodeJSON(t, got), decodeJSON(t, want))
	return diffs
}

func isDouble(n json.Number) bool { return strings.ContainsAny(string(n), ".eE") }

func sameNumber(a, b json.Number) bool {
	if !isDouble(a) {
		return string(a) == string(b)
	}
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x == y
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

func legacyFilter(diffs []string) []string {
	var out []string
	for _, d := range diffs {
		if strings.HasSuffix(d, "want absent") || strings.HasPrefix(d, "$[0].totalDuration:") {
			continue
		}
		out = append(out, d)
	}
	return out
}

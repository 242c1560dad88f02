package historyapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
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
	l.once.Do(func() { l.apps, l.err = replay.LoadApps(context.Background(), dir, replay.Options{}) })
	if l.err != nil {
		t.Fatalf("load %s: %v", dir, l.err)
	}
	return New(l.apps)
}

func TestHistoryServerGoldens(t *testing.T) {
	cases := hstest.Cases(t)
	if len(cases) != 60 {
		t.Fatalf("got %d suite cases, want 60", len(cases))
	}
	api := loadDir(t, sparktest.Path(t, "spark-events"))
	runGoldens(t, api, cases, sparktest.Path(t, "HistoryServerExpectations"))
}

func TestHistoricalGoldens(t *testing.T) {
	dir := sparktest.Path(t, "extra", "historical")
	api := loadDir(t, filepath.Join(dir, "spark-events"))
	cases := []hstest.Case{
		{Name: "executor list with executor metrics json", URL: "applications/application_1506645932520_24630151/executors",
			File: "executor_list_with_executor_metrics_json_expectation.json"},
		{Name: "executor list with executor process tree metrics json", URL: "applications/application_1538416563558_0014/executors",
			File: "executor_list_with_executor_process_tree_metrics_json_expectation.json"},
		{Name: "executor list with executor garbage collection metrics json", URL: "applications/application_1536831636016_59384/1/executors",
			File: "executor_list_with_executor_garbage_collection_metrics_json_expectation.json"},
	}
	runGoldensMode(t, api, cases, filepath.Join(dir, "HistoryServerExpectations"), true)
}

func runGoldens(t *testing.T, api *API, cases []hstest.Case, expDir string) {
	runGoldensMode(t, api, cases, expDir, false)
}

// runGoldensMode compares each case; legacy compares against the 2019
// History Server, whose schema lacked fields added since (isExcluded,
// resourceProfileId, TotalGCTime, ...) and which neither took executor
// peaks from task ends nor reported the driver's duration as the
// application's: legacy ignores fields the golden lacks and the driver's
// totalDuration.
func runGoldensMode(t *testing.T, api *API, cases []hstest.Case, expDir string, legacy bool) {
	passed, failed := 0, 0
	for _, c := range cases {
		ok := t.Run(c.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(expDir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			v, err := api.Get("/api/v1/" + c.URL)
			if err != nil {
				t.Fatalf("GET %s: %v", c.URL, err)
			}
			got := decodeJSON(t, Marshal(v))
			hstest.Normalise(got)
			diffs := hstest.Diff(got, decodeJSON(t, want))
			if legacy {
				diffs = legacyFilter(diffs)
			}
			diffs = slices.DeleteFunc(diffs, hstest.AddedSinceGoldens)
			if len(diffs) > 0 {
				if len(diffs) > 15 {
					diffs = append(diffs[:15], fmt.Sprintf("... and %d more", len(diffs)-15))
				}
				t.Errorf("GET %s differs from %s:\n%s", c.URL, c.File, strings.Join(diffs, "\n"))
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

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	v, err := hstest.Decode(b)
	if err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, b)
	}
	return v
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

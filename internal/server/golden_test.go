package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/server/web"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestHistoryServerGoldens serves the History Server test directory and
// checks every HistoryServerSuite case over HTTP, twice: after the first
// ingest (models in memory) and after a restart on the same store (index
// from the store, models replayed on demand).
func TestHistoryServerGoldens(t *testing.T) {
	cases := hstest.Cases(t)
	if len(cases) != 60 {
		t.Fatalf("got %d suite cases, want 60", len(cases))
	}
	logs := sparktest.Path(t, "spark-events")
	expDir := sparktest.Path(t, "HistoryServerExpectations")
	data := t.TempDir()
	for _, phase := range []string{"first", "restarted"} {
		t.Run(phase, func(t *testing.T) {
			ts := startServer(t, data, "", logs)
			ts.waitIdle(t)
			if phase == "restarted" {
				if st := ts.in.Status(); st.Bytes != 0 {
					t.Errorf("after restart: ingest read %d bytes, want 0 (every log was already analysed)", st.Bytes)
				}
			}
			passed := 0
			for _, c := range cases {
				t.Run(c.Name, func(t *testing.T) {
					want, err := os.ReadFile(filepath.Join(expDir, c.File))
					if err != nil {
						t.Fatal(err)
					}
					code, body := ts.get(t, "/api/v1/"+c.URL)
					if code != 200 {
						t.Fatalf("GET %s: status %d: %s", c.URL, code, body)
					}
					g, err := hstest.Decode(body)
					if err != nil {
						t.Fatalf("GET %s: %v", c.URL, err)
					}
					hstest.Normalise(g)
					w, err := hstest.Decode(want)
					if err != nil {
						t.Fatal(err)
					}
					var diffs []string
					for _, d := range hstest.Diff(g, w) {
						if !hstest.AddedSinceGoldens(d) {
							diffs = append(diffs, d)
						}
					}
					if len(diffs) > 10 {
						diffs = diffs[:10]
					}
					if len(diffs) > 0 {
						t.Errorf("GET %s differs from %s:\n%s", c.URL, c.File, strings.Join(diffs, "\n"))
					} else {
						passed++
					}
				})
			}
			t.Logf("%s: %d of %d cases match", phase, passed, len(cases))
		})
	}
}

// TestStoredViewsMatchModel: every stored History Server view answers
// byte for byte what the replayed model answers (a query string makes the
// server use the model).
func TestStoredViewsMatchModel(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	var apps []struct {
		ID       string
		Attempts []struct{ AttemptID string }
	}
	ts.getJSON(t, "/api/v1/applications", &apps)
	checked := 0
	for _, app := range apps {
		bases := []string{"/api/v1/applications/" + app.ID}
		for _, at := range app.Attempts {
			if at.AttemptID != "" {
				bases = append(bases, bases[0]+"/"+at.AttemptID)
			}
		}
		for _, base := range bases {
			for res := range storedResources {
				_, stored := ts.srv.storedAPI(historyapi.Segments(base+"/"+res), "")
				c1, b1 := ts.get(t, base+"/"+res)
				c2, b2 := ts.get(t, base+"/"+res+"?sparkdx-test=model")
				if c1 != c2 || string(b1) != string(b2) {
					t.Errorf("%s/%s: stored (%v) answer %d %.120s differs from the model's %d %.120s", base, res, stored, c1, b1, c2, b2)
				}
				if stored {
					checked++
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d stored views were compared, want at least 100", checked)
	}
	t.Logf("%d stored views match the model", checked)
}

// TestStoredPageMatchesModel: the stored app-page data equals what the
// page computes from the replayed model.
func TestStoredPageMatchesModel(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	n := 0
	for _, sum := range ts.srv.summaries() {
		stored, err := ts.in.View(sum.Key(), "page")
		if err != nil {
			t.Errorf("%s: no stored page: %v", sum.Key(), err)
			continue
		}
		a, release, err := ts.in.Attempt(context.Background(), sum.Key())
		if err != nil {
			t.Fatal(err)
		}
		rec := recordOf(ts, sum.Key())
		want, _ := web.StoredView(a, analyze.Analyze(a), rec.LastUpdated)
		release()
		if string(stored) != string(want) {
			t.Errorf("%s: stored page data differs from the model's:\ngot  %.200s\nwant %.200s", sum.Key(), stored, want)
		}
		n++
	}
	if n != 19 {
		t.Errorf("compared %d pages, want 19", n)
	}
}

func recordOf(ts *testServer, key string) store.LogRecord {
	for _, r := range ts.in.Records() {
		if r.Key == key {
			return r
		}
	}
	return store.LogRecord{}
}

// TestAppListMatchesModel: the application list, which serve builds from
// its index of log records rather than from replayed models, answers what
// the History Server API answers from the models — Spark 4.3's exitCode
// included — after the first ingest and after a restart on the same store.
func TestAppListMatchesModel(t *testing.T) {
	logs := t.TempDir()
	scen, _ := filepath.Glob("../../testdata/scenarios/*/spark-4.3.0/app-*")
	if len(scen) == 0 {
		t.Fatal("no scenario logs of Spark 4.3.0")
	}
	for _, p := range append(scen, sparktest.Path(t, "spark-events/app-20200706201101-0003")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(logs, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	apps, err := replay.LoadApps(context.Background(), logs, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	for _, phase := range []string{"first", "restarted"} {
		ts := startServer(t, data, "", logs)
		ts.waitIdle(t)
		for _, q := range []string{"applications", "applications?status=completed", "applications?limit=3"} {
			v, err := historyapi.New(apps).Get(q)
			if err != nil {
				t.Fatal(err)
			}
			want := historyapi.Marshal(v)
			if !strings.Contains(string(want), `"exitCode"`) {
				t.Fatalf("%s: the model's answer has no exitCode: the logs do not test what this test is for", q)
			}
			code, got := ts.get(t, "/api/v1/"+q)
			if code != 200 {
				t.Fatalf("%s: GET %s: %d %s", phase, q, code, got)
			}
			g, _ := hstest.Decode(got)
			w, _ := hstest.Decode(want)
			if d := hstest.Diff(g, w); len(d) > 0 {
				t.Errorf("%s: GET %s differs from the model's answer:\n%s", phase, q, strings.Join(d[:min(len(d), 5)], "\n"))
			}
		}
		ts.stop()
		ts.stop = nil
	}
}

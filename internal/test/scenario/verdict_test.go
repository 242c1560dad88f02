package scenario

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLiveKey pins what a live run's key covers: the scenario's files, the
// Spark pin of its line, the harness and, with the agent, the agent's code;
// not its logs, its verdicts or test files.
func TestLiveKey(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "testdata", "scenarios", "s")
	for path, body := range map[string]string{
		".ci/spark/3.5.9.txt":                      "pyspark==3.5.9\n",
		".ci/spark/4.3.0.txt":                      "pyspark==4.3.0\n",
		"internal/test/scenario/run.go":            "package scenario\n",
		"internal/test/sparktest/cluster.go":       "package sparktest\n",
		"internal/test/sparktest/spark.go":         "package sparktest\n",
		"internal/agent/driverdata.go":             "package agent\n",
		"internal/agent/driverdata_test.go":        "package agent\n",
		"testdata/scenarios/s/workload.py":         "print(1)\n",
		"testdata/scenarios/s/scenario.json":       `{"cluster":{"workers":2}}`,
		"testdata/scenarios/s/input/a.csv":         "a\n1\n",
		"testdata/scenarios/s/spark-3.5.9/app.zst": "log",
	} {
		writeFile(t, mkdir(t, filepath.Join(root, path)), body)
	}
	// TestLive's scenarios have relative directories.
	rel, err := filepath.Rel(must(os.Getwd()), dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &Scenario{Name: "s", Dir: rel}
	key := func() Verdict {
		t.Helper()
		v, err := s.LiveKey(root, "3.5.9")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	base := key()
	wantInputs := []string{".ci/spark/3.5.9.txt", "internal/test/scenario/run.go", "internal/test/sparktest/cluster.go",
		"internal/test/sparktest/spark.go", "testdata/scenarios/s/input/a.csv", "testdata/scenarios/s/scenario.json",
		"testdata/scenarios/s/workload.py"}
	if got := sortedKeys(base.Inputs); !slices.Equal(got, wantInputs) {
		t.Errorf("inputs: got %v, want %v", got, wantInputs)
	}
	for _, c := range []struct {
		file    string
		changes bool
	}{
		{"testdata/scenarios/s/workload.py", true},
		{"testdata/scenarios/s/scenario.json", true},
		{"testdata/scenarios/s/input/a.csv", true},
		{".ci/spark/3.5.9.txt", true},
		{"internal/test/sparktest/cluster.go", true},
		{".ci/spark/4.3.0.txt", false}, // the other line's pin
		{"testdata/scenarios/s/spark-3.5.9/app.zst", false},
		{"testdata/scenarios/s/" + VerdictFile, false},
		{"internal/agent/driverdata.go", false}, // s does not run the agent
	} {
		path := filepath.Join(root, c.file)
		old, _ := os.ReadFile(path)
		writeFile(t, path, string(old)+"# edited\n")
		now := key()
		if changed := now.Key != base.Key; changed != c.changes {
			t.Errorf("edit %s: key changed %v, want %v", c.file, changed, c.changes)
		}
		if c.changes && !slices.Equal(base.Changed(now), []string{c.file}) {
			t.Errorf("edit %s: Changed names %v, want it alone", c.file, base.Changed(now))
		}
		writeFile(t, path, string(old))
	}
	if now := key(); now.Key != base.Key {
		t.Errorf("every edit undone: got key %s, want %s again", now.Key, base.Key)
	}

	s.Agent = true
	agent := key()
	if _, ok := agent.Inputs["internal/agent/driverdata.go"]; !ok || agent.Key == base.Key {
		t.Errorf("agent scenario: inputs %v: want the agent's code (not its tests) in the key", sortedKeys(agent.Inputs))
	}
	if _, ok := agent.Inputs["internal/agent/driverdata_test.go"]; ok {
		t.Error("agent scenario: the agent's tests are in the key")
	}
	if got := base.Changed(agent); !slices.Equal(got, []string{"internal/agent/driverdata.go"}) {
		t.Errorf("Changed: got %v, want the added agent file", got)
	}
	if got := agent.Changed(base); !slices.Equal(got, []string{"internal/agent/driverdata.go"}) {
		t.Errorf("Changed: got %v, want the removed agent file", got)
	}
}

// TestPlanLive: a scenario runs live without a recorded verdict, without
// a committed log, with a changed key (saying which file changed) and when
// every run is asked for; else its verdict is reused.
func TestPlanLive(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{".ci/spark/3.5.9.txt", "internal/test/scenario/run.go", "internal/test/sparktest/cluster.go",
		"internal/test/sparktest/spark.go", "testdata/scenarios/s/workload.py", "testdata/scenarios/s/scenario.json"} {
		writeFile(t, mkdir(t, filepath.Join(root, f)), f)
	}
	s := &Scenario{Name: "s", Dir: filepath.Join(root, "testdata", "scenarios", "s")}
	plan := func(every bool) livePlan { return planLive(t, root, s, "3.5.9", every) }
	check := func(what string, p livePlan, run bool, why string) {
		t.Helper()
		if p.run != run || !strings.Contains(p.why, why) {
			t.Errorf("%s: got run %v (%q), want %v (%q)", what, p.run, p.why, run, why)
		}
	}
	check("no verdict", plan(false), true, "no recorded verdict")
	key := plan(false).key
	key.Passed, key.Log = time.Now(), "app-1.zstd"
	if err := s.Record("3.5.9", key); err != nil {
		t.Fatal(err)
	}
	check("no committed log", plan(false), true, "no committed log")
	writeFile(t, mkdir(t, filepath.Join(s.Dir, "spark-3.5.9", "app-1.zstd")), "log")
	check("recorded", plan(false), false, "")
	check("every", plan(true), true, "SPARKDX_LIVE=all")
	writeFile(t, filepath.Join(s.Dir, "workload.py"), "changed")
	check("changed", plan(false), true, "changed since its recorded run: testdata/scenarios/s/workload.py")
	if err := s.Record("4.3.0", key); err != nil {
		t.Fatal(err)
	}
	check("another line recorded", plan(false), true, "workload.py")
}

// TestVerdicts: a recorded verdict reads back per Spark line, and
// recording one line keeps the other's.
func TestVerdicts(t *testing.T) {
	s := &Scenario{Name: "s", Dir: t.TempDir()}
	if got, err := s.Verdicts(); err != nil || len(got) != 0 {
		t.Fatalf("no live.json: got %v, %v, want none", got, err)
	}
	a := Verdict{Key: "a", Inputs: map[string]string{"w.py": "1"}, Passed: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Log: "app-1.zstd"}
	b := Verdict{Key: "b", Inputs: map[string]string{"w.py": "2"}, Passed: a.Passed.Add(time.Hour), Log: "app-2.zstd"}
	if err := s.Record("3.5.9", a); err != nil {
		t.Fatal(err)
	}
	if err := s.Record("4.3.0", b); err != nil {
		t.Fatal(err)
	}
	got, err := s.Verdicts()
	if err != nil {
		t.Fatal(err)
	}
	if g := got["3.5.9"]; g.Key != "a" || g.Log != a.Log || !g.Passed.Equal(a.Passed) || g.Inputs["w.py"] != "1" {
		t.Errorf("3.5.9: got %+v, want %+v", g, a)
	}
	if g := got["4.3.0"]; g.Key != "b" || !g.Passed.Equal(b.Passed) {
		t.Errorf("4.3.0: got %+v, want %+v", g, b)
	}
	writeFile(t, filepath.Join(s.Dir, VerdictFile), "{")
	if _, err := s.Verdicts(); err == nil {
		t.Error("a broken live.json: want an error")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func mkdir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

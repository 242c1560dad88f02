package scenario

import (
	"context"
	"flag"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "regenerate the committed scenario event logs (TestLive, needs Spark)")

const root = "../../../testdata/scenarios"

func loadAll(t *testing.T) []*Scenario {
	t.Helper()
	all, err := All(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 17 {
		t.Fatalf("got %d scenarios, want at least 17", len(all))
	}
	return all
}

// TestCommittedLogs checks every scenario's expectations on the event logs
// real Spark wrote for it, on every Spark line.
func TestCommittedLogs(t *testing.T) {
	for _, s := range loadAll(t) {
		logs := s.Logs()
		if len(logs) < 2 {
			t.Errorf("%s: %d committed logs, want one per Spark line", s.Name, len(logs))
		}
		for version, path := range logs {
			t.Run(s.Name+"/"+version, func(t *testing.T) {
				d, err := Diagnose(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				report(t, s, d)
			})
		}
	}
}

// report fails t for every outcome that fails and logs pending ones.
func report(t *testing.T, s *Scenario, d *Diagnosis) {
	t.Helper()
	for _, o := range s.Check(d) {
		switch {
		case o.Pending != "" && o.Met:
			t.Errorf("%s: pending expectation now met, remove \"pending\": %s", s.Name, o.What)
		case o.Pending != "":
			t.Logf("%s: pending (%s): %s — %s", s.Name, o.Pending, o.What, o.Detail)
		case !o.Met:
			t.Errorf("%s: want %s; %s", s.Name, o.What, o.Detail)
		}
	}
}

func TestLoadRejects(t *testing.T) {
	for _, c := range []struct{ name, json string }{
		{"unknown rule", `{"expect":{"fires":[{"rule":"no-such-rule","severity":"warning"}]}}`},
		{"bad severity", `{"expect":{"fires":[{"rule":"spill","severity":"loud"}]}}`},
		{"bad quiet", `{"expect":{"quietAbove":"loud"}}`},
		{"unknown fact", `{"expect":{"facts":[{"metric":"no-such-metric","min":1}]}}`},
		{"not json", `{`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "workload.py"), "")
			writeFile(t, filepath.Join(dir, "scenario.json"), c.json)
			if _, err := Load(dir); err == nil {
				t.Errorf("Load accepted %s", c.json)
			}
		})
	}
}

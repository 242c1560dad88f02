package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffNamesConfigChanges runs `sparkdx diff` on the committed logs of
// the scenario pair config-change-before/-after — one workload, run twice
// with four shuffle partitions, spark.memory.fraction 0.05 and broadcast
// joins off, then with eight, 0.6 and 10 MB — on each Spark line, and
// checks the diff names the three settings, each linked to the stages
// where what it acts on changed, and says so in text too.
func TestDiffNamesConfigChanges(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "scenarios")
	for _, line := range []string{"3.5.9", "4.3.0"} {
		t.Run(line, func(t *testing.T) {
			logs := [2]string{}
			for i, name := range []string{"config-change-before", "config-change-after"} {
				m, err := filepath.Glob(filepath.Join(root, name, "spark-"+line, "app-*"))
				if err != nil || len(m) != 1 {
					t.Fatalf("%s on %s: %d logs (%v), want the committed one", name, line, len(m), err)
				}
				logs[i] = m[0]
			}
			var out, errb bytes.Buffer
			if code := run(context.Background(), []string{"diff", "--format", "json", logs[0], logs[1]}, nil, &out, &errb); code != 0 {
				t.Fatalf("got exit %d: %s", code, errb.String())
			}
			var d struct {
				Config []struct {
					Key, Before, After string
					Effect             string
					StageIDs           []int
					ImpactMs           int64
				}
			}
			if err := json.Unmarshal(out.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for i, c := range d.Config {
				got[c.Key] = i
			}
			for _, w := range []struct{ key, before, after string }{
				{"spark.sql.shuffle.partitions", "4", "8"},
				{"spark.memory.fraction", "0.05", "0.6"},
				{"spark.sql.autoBroadcastJoinThreshold", "-1", "10m"},
			} {
				i, ok := got[w.key]
				if !ok {
					t.Errorf("diff does not name %s; it names %+v", w.key, d.Config)
					continue
				}
				c := d.Config[i]
				if c.Before != w.before || c.After != w.after {
					t.Errorf("%s: got %s → %s, want %s → %s", w.key, c.Before, c.After, w.before, w.after)
				}
				if c.Effect == "" || len(c.StageIDs) == 0 || c.ImpactMs <= 0 {
					t.Errorf("%s: got effect %q on stages %v (%d ms), want it linked to the stages that changed", w.key,
						c.Effect, c.StageIDs, c.ImpactMs)
				}
			}
			// The three settings are the only ones the runs differ in.
			if len(d.Config) != 3 {
				t.Errorf("got %d config changes, want the 3 set: %+v", len(d.Config), d.Config)
			}
			out.Reset()
			if code := run(context.Background(), []string{"diff", logs[0], logs[1]}, nil, &out, &errb); code != 0 {
				t.Fatalf("text: got exit %d: %s", code, errb.String())
			}
			for _, want := range []string{"Configuration changed", "spark.sql.shuffle.partitions  4 → 8",
				"spark.memory.fraction  0.05 → 0.6", "spark.sql.autoBroadcastJoinThreshold  -1 → 10m"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("text: no %q in\n%s", want, out.String())
				}
			}
			out.Reset()
			if code := run(context.Background(), []string{"diff", "--format", "html", logs[0], logs[1]}, nil, &out, &errb); code != 0 {
				t.Fatalf("html: got exit %d: %s", code, errb.String())
			}
			page := out.String()
			i := strings.Index(page, `id="config-changes"`)
			if i < 0 {
				t.Fatal("html: no configuration table")
			}
			table := page[i:min(len(page), i+4000)]
			for _, want := range []string{"<code>spark.sql.shuffle.partitions</code></td><td>4</td><td>8</td>",
				"<code>spark.memory.fraction</code></td><td>0.05</td><td>0.6</td>",
				"<code>spark.sql.autoBroadcastJoinThreshold</code></td><td>-1</td><td>10m</td>"} {
				if !strings.Contains(table, want) {
					t.Errorf("html: no row %q", want)
				}
			}
		})
	}
}

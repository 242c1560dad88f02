package server

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestComparePageNamesConfigChanges: serve's compare page of the
// config-change scenario pair lists the three settings the runs differ
// in, as `sparkdx diff` does.
func TestComparePageNamesConfigChanges(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "scenarios")
	var ids, dirs []string
	for _, name := range []string{"config-change-before", "config-change-after"} {
		dir := filepath.Join(root, name, "spark-4.3.0")
		logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
		if err != nil || len(logs) != 1 {
			t.Fatalf("%s: %d logs (%v), want the committed one", dir, len(logs), err)
		}
		a, _, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ids, dirs = append(ids, a.AppID), append(dirs, dir)
	}
	ts := startServer(t, t.TempDir(), "", dirs...)
	ts.waitIdle(t)
	code, body := ts.get(t, "/compare?a="+ids[0]+"&b="+ids[1])
	if code != 200 {
		t.Fatalf("GET /compare: %d", code)
	}
	page := string(body)
	i := strings.Index(page, `id="config-changes"`)
	if i < 0 {
		t.Fatalf("no configuration table on the compare page")
	}
	table := page[i:min(len(page), i+4000)]
	for _, want := range []string{"<code>spark.sql.shuffle.partitions</code></td><td>4</td><td>8</td>",
		"<code>spark.memory.fraction</code></td><td>0.05</td><td>0.6</td>",
		"<code>spark.sql.autoBroadcastJoinThreshold</code></td><td>-1</td><td>10m</td>"} {
		if !strings.Contains(table, want) {
			t.Errorf("compare page: no row %q in %s", want, table)
		}
	}
}

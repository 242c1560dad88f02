package delta

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// docQuery returns the SQL block that follows <!-- query: name --> in
// docs/delta-tables.md, so the documented query is the tested one.
func docQuery(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "delta-tables.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- query: " + regexp.QuoteMeta(name) + " -->\\s*```sql\\n(.*?)```")
	m := re.FindSubmatch(b)
	if m == nil {
		t.Fatalf("docs/delta-tables.md has no query %q", name)
	}
	return string(m[1])
}

// TestDocQueryMemoryByStage runs the documented seed query (memory per
// executor over time next to the running stage) on tables written from a
// real event log plus samples placed inside one of its stages.
func TestDocQueryMemoryByStage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	red, _ := NewRedactor("")
	a := analyse(t, "local-1430917381534")
	ts, err := OpenTables(ctx, DirLocator(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.WriteApp(ctx, RowsOf(a.attempt, a.report, red, time.Now())); err != nil {
		t.Fatal(err)
	}
	var stageID int
	var from, to int64
	for _, s := range a.attempt.Stages {
		if s.CompletionTime-s.SubmissionTime >= 3 {
			stageID, from, to = s.StageID, s.SubmissionTime, s.CompletionTime
			break
		}
	}
	if to == 0 {
		t.Fatal("no stage of 3 ms or more in the log")
	}
	appID := a.report.App.ID
	var samples []SampleRow
	at := time.UnixMilli(from + 1).UTC()
	for _, pool := range []struct {
		name, typ string
		used      float64
	}{{"G1 Eden Space", "heap", 3 << 20}, {"G1 Old Gen", "heap", 5 << 20}, {"metaspace", "non_heap", 7 << 20}} {
		samples = append(samples, SampleRow{Date: SampleDate(at), Time: at, Metric: "jvm.memory.used", Value: pool.used,
			Unit: "By", Host: "h", AppID: appID, ExecutorID: "1", Role: "executor", Service: "sparkdx-agent",
			Attributes: map[string]string{"jvm.memory.pool.name": pool.name, "jvm.memory.type": pool.typ}})
	}
	if _, err := ts.Samples.Append(ctx, samples, AppendOptions{}); err != nil {
		t.Fatal(err)
	}

	q := docQuery(t, "memory-by-stage")
	db := openDuckDB(t)
	for _, name := range []string{TableSamples, TableStages} {
		root := filepath.Join(dir, name)
		st := &sqlTable{root: root, tb: checkTable(t, root)}
		q = strings.ReplaceAll(q, fmt.Sprintf("delta_scan('/lake/sparkdx/%s')", name), st.from())
	}
	q = strings.ReplaceAll(q, "app-20261121101500-0042", appID)
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var ts time.Time
		var exec, stages string
		var mib float64
		if err := rows.Scan(&ts, &exec, &mib, &stages); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %.0f %s", ts.UnixMilli(), exec, mib, stages))
	}
	var name string
	for _, s := range a.report.Stages {
		if s.StageID == stageID {
			name = s.Name
		}
	}
	want := []string{fmt.Sprintf("%d 1 8 %d %s", from+1, stageID, name)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("DuckDB: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The Spark SQL version of the question, in Spark with Delta Lake on the
	// same tables (their LOCATION in the directory, the sample's date).
	sparktest.Live(t)
	spark := docQuery(t, "spark-memory-by-stage")
	spark = strings.ReplaceAll(spark, "s3a://lake/sparkdx", dir)
	spark = strings.ReplaceAll(spark, "2026-11-21", SampleDate(at))
	spark = strings.ReplaceAll(spark, "app-20261121101500-0042", appID)
	var statements []string
	for _, st := range strings.Split(spark, ";\n") { // statements end their line; '; ' is a string
		if st = strings.TrimSpace(st); st != "" {
			statements = append(statements, st)
		}
	}
	got = nil
	for _, r := range deltaread.SparkSQL(t, statements...) {
		if len(r) != 4 {
			t.Fatalf("Spark: row %v, want time, executor, MiB, stages", r)
		}
		got = append(got, fmt.Sprintf("%.0f %v %.0f %v", r[0], r[1], r[2], r[3]))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Spark: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDocOfflineQueries runs the documented offline DuckDB globs on tables
// past their first checkpoint (a Parquet file in _delta_log/ that a glob
// like samples/*/*.parquet also matched): the rows equal the table's.
func TestDocOfflineQueries(t *testing.T) {
	l := writeLake(t, nil)
	db := openDuckDB(t)
	local := func(q string) string { return strings.ReplaceAll(q, "/lake/sparkdx", l.dir) }

	stages := checkTable(t, filepath.Join(l.dir, TableStages))
	var n int64
	if err := db.QueryRow(local(docQuery(t, "offline-stages"))).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != stages.Rows {
		t.Errorf("offline-stages counts %d rows, the table has %d", n, stages.Rows)
	}

	samples := checkTable(t, filepath.Join(l.dir, TableSamples))
	if len(samples.Checkpoints) == 0 {
		t.Fatal("samples has no checkpoint: the test would not catch a glob into _delta_log/")
	}
	want := map[string]int64{}
	for _, f := range samples.Files {
		want[f.PartitionValues["date"]] += f.NumRecords
	}
	rows, err := db.Query(local(docQuery(t, "offline-samples")))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int64{}
	for rows.Next() {
		var date string
		var c int64
		if err := rows.Scan(&date, &c); err != nil {
			t.Fatal(err)
		}
		got[date] = c
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("offline-samples: got rows by date %v, want %v", got, want)
	}
}

// TestDocQuerySlowestApps runs the documented "slowest applications with
// their worst finding" query on tables from three real logs (its window
// ending an hour after the latest start instead of now): the apps of that
// week, slowest first, each with the rule of one of its most severe
// findings.
func TestDocQuerySlowestApps(t *testing.T) {
	l := writeLake(t, nil)
	q := docQuery(t, "slowest-apps")
	for _, name := range []string{TableApps, TableFindings} {
		root := filepath.Join(l.dir, name)
		st := &sqlTable{root: root, tb: checkTable(t, root)}
		q = strings.ReplaceAll(q, fmt.Sprintf("delta_scan('/lake/sparkdx/%s')", name), st.from())
	}
	apps := readTable[AppRow](t, filepath.Join(l.dir, TableApps))
	var latest time.Time
	for _, a := range apps {
		if a.StartTime != nil && a.StartTime.After(latest) {
			latest = *a.StartTime
		}
	}
	ref := latest.Add(time.Hour)
	q = strings.ReplaceAll(q, "now()", fmt.Sprintf("TIMESTAMPTZ '%s'", ref.UTC().Format("2006-01-02 15:04:05+00")))
	var want []string // the apps of the week before ref
	for _, a := range apps {
		if a.StartTime != nil && a.StartTime.After(ref.Add(-7*24*time.Hour)) {
			want = append(want, a.AppID)
		}
	}
	worst := map[string]map[string]bool{} // app → rules of its most severe findings
	rank := map[string]int{"critical": 3, "warning": 2}
	best := map[string]int{}
	for _, f := range readTable[FindingRow](t, filepath.Join(l.dir, TableFindings)) {
		r := max(rank[f.Severity], 1)
		if r > best[f.AppID] {
			best[f.AppID], worst[f.AppID] = r, map[string]bool{}
		}
		if r == best[f.AppID] {
			worst[f.AppID][f.Rule] = true
		}
	}
	rows, err := openDuckDB(t).Query(q)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	var got []string
	prev := math.Inf(1)
	for rows.Next() {
		var app, name string
		var minutes float64
		var rule sql.NullString
		if err := rows.Scan(&app, &name, &minutes, &rule); err != nil {
			t.Fatal(err)
		}
		if minutes > prev {
			t.Errorf("%s (%.2f min) after a shorter app: not slowest first", app, minutes)
		}
		prev = minutes
		if rule.Valid != (len(worst[app]) > 0) || rule.Valid && !worst[app][rule.String] {
			t.Errorf("%s: worst_rule %v, want one of %v", app, rule, worst[app])
		}
		got = append(got, app)
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("got apps %v, want the week's %v", got, want)
	}
}

// readTable reads every row of the table at root from its live files.
func readTable[T any](t *testing.T, root string) []T {
	t.Helper()
	var out []T
	for _, f := range checkTable(t, root).Files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := parquet.Read[T](bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		out = append(out, rows...)
	}
	return out
}

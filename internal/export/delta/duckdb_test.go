package delta

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
	"github.com/sparkdx/sparkdx/internal/test/deltaread"
)

// openDuckDB returns an in-memory DuckDB: the independent reader of what
// the writer produced. delta_scan needs an extension download, so the
// tests read the Parquet files the log's live add actions name.
func openDuckDB(t *testing.T) *sql.DB { return deltaread.DuckDB(t) }

func quoteList(root string, files []deltacheck.File) string {
	var q []string
	for _, f := range files {
		q = append(q, "'"+strings.ReplaceAll(filepath.Join(root, f.Path), "'", "''")+"'")
	}
	return "[" + strings.Join(q, ",") + "]"
}

// duckStats checks every live file's statistics against DuckDB's reading
// of the same file: numRecords, min, max and nullCount of each column.
func duckStats(t *testing.T, db *sql.DB, root string, tb *deltacheck.Table) {
	t.Helper()
	for _, f := range tb.Files {
		path := filepath.Join(root, f.Path)
		var n int64
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM read_parquet('%s')", path)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != f.Stats.NumRecords {
			t.Errorf("%s: numRecords %d, DuckDB counts %d", f.Path, f.Stats.NumRecords, n)
		}
		for col, nulls := range f.Stats.NullCount {
			var got int64
			q := fmt.Sprintf(`SELECT count(*) - count("%s") FROM read_parquet('%s')`, col, path)
			if err := db.QueryRow(q).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != nulls {
				t.Errorf("%s: nullCount.%s %d, DuckDB %d", f.Path, col, nulls, got)
			}
		}
		for col, want := range f.Stats.MinValues {
			checkBound(t, db, path, col, "min", want)
		}
		for col, want := range f.Stats.MaxValues {
			checkBound(t, db, path, col, "max", want)
		}
	}
}

// checkBound compares a stats bound with DuckDB's min/max, rendered the way
// Delta renders it (timestamps truncated to milliseconds, strings cut to 32
// characters for min).
func checkBound(t *testing.T, db *sql.DB, path, col, fn string, want any) {
	t.Helper()
	var typ string
	if err := db.QueryRow(fmt.Sprintf(`SELECT typeof("%s") FROM read_parquet('%s') LIMIT 1`, col, path)).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	var got any
	switch {
	case strings.HasPrefix(typ, "TIMESTAMP"):
		var ts time.Time
		q := fmt.Sprintf(`SELECT %s("%s") FROM read_parquet('%s')`, fn, col, path)
		if err := db.QueryRow(q).Scan(&ts); err != nil {
			t.Fatal(err)
		}
		got = ts.UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	case typ == "VARCHAR":
		var s string
		q := fmt.Sprintf(`SELECT %s("%s") FROM read_parquet('%s')`, fn, col, path)
		if err := db.QueryRow(q).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if fn == "min" && len([]rune(s)) > statPrefix {
			s = string([]rune(s)[:statPrefix])
		}
		got = s
	default:
		var x float64
		q := fmt.Sprintf(`SELECT %s("%s")::DOUBLE FROM read_parquet('%s')`, fn, col, path)
		if err := db.QueryRow(q).Scan(&x); err != nil {
			t.Fatal(err)
		}
		got = x
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: %sValues.%s = %v, DuckDB %v (%s)", path, fn, col, want, got, typ)
	}
}

func TestDuckDBReadsTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{Name: "t", PartitionBy: []string{"date"}, CheckpointInterval: 2})
	if err != nil {
		t.Fatal(err)
	}
	var all []testRow
	for i := 0; i < 5; i++ {
		rows := testRows(7, i*7)
		all = append(all, rows...)
		if _, err := tbl.Append(ctx, rows, AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tb := checkTable(t, dir)
	db := openDuckDB(t)
	duckStats(t, db, dir, tb)

	// Every row written comes back, value for value.
	q := fmt.Sprintf(`SELECT "date", id, name, score, "at", ok, labels['k'], stages FROM read_parquet(%s, hive_partitioning=false) ORDER BY id`, quoteList(dir, tb.Files))
	res, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	i := 0
	for ; res.Next(); i++ {
		var (
			r      testRow
			score  sql.NullFloat64
			label  sql.NullString
			stages []any
		)
		if err := res.Scan(&r.Date, &r.ID, &r.Name, &score, &r.At, &r.OK, &label, &stages); err != nil {
			t.Fatal(err)
		}
		if i >= len(all) {
			continue
		}
		w := all[i]
		if r.Date != w.Date || r.ID != w.ID || r.Name != w.Name || !r.At.Equal(w.At) || r.OK != w.OK {
			t.Errorf("row %d: got %+v, want %+v", i, r, w)
		}
		if (w.Score == nil) != !score.Valid || (w.Score != nil && *w.Score != score.Float64) {
			t.Errorf("row %d: score got %v, want %v", i, score, w.Score)
		}
		if label.String != w.Labels["k"] {
			t.Errorf("row %d: labels['k'] got %q, want %q", i, label.String, w.Labels["k"])
		}
		if fmt.Sprint(stages) != fmt.Sprint(w.Stages) {
			t.Errorf("row %d: stages got %v, want %v", i, stages, w.Stages)
		}
	}
	if i != len(all) {
		t.Errorf("got %d rows, want %d", i, len(all))
	}

	// The checkpoint is a Parquet file DuckDB reads too: its live adds are
	// the files the replay found.
	var n int64
	cp := filepath.Join(dir, "_delta_log", checkpointName(tb.LastCheckpoint))
	q = fmt.Sprintf(`SELECT count(*) FROM read_parquet('%s') WHERE add IS NOT NULL AND add.partitionValues['date'] IS NOT NULL`, cp)
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if want := int64(tb.LastCheckpoint) * 2; n != want {
		t.Errorf("checkpoint %d: DuckDB sees %d adds with a date, want %d", tb.LastCheckpoint, n, want)
	}
}

package deltaread

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestDuckDB: each DuckDB type scans as DuckDB's Go driver gives it, tables
// persist between statements, and a bad statement is an error naming
// DuckDB's complaint.
func TestDuckDB(t *testing.T) {
	db := DuckDB(t)
	if _, err := db.Exec("CREATE TABLE t AS SELECT TIMESTAMP '2026-11-21 10:15:00.123456' AS ts, TIMESTAMPTZ '2026-11-21 10:15:00+02' AS tz, " +
		"DATE '2026-11-21' AS d, 42::BIGINT AS i, 2.5::DOUBLE AS f, 1.25::DECIMAL(10,2) AS dec, true AS b, 'x''y' AS s, " +
		"[1, 2] AS l, map(['k'], ['v']) AS m, NULL::VARCHAR AS n"); err != nil {
		t.Fatal(err)
	}
	var (
		ts, tz, d time.Time
		i         int64
		f, dec    float64
		b         bool
		s         string
		l         []any
		m         map[string]any
		n         *string
	)
	if err := db.QueryRow("SELECT * FROM t").Scan(&ts, &tz, &d, &i, &f, &dec, &b, &s, &l, &m, &n); err != nil {
		t.Fatal(err)
	}
	want := []any{time.Date(2026, 11, 21, 10, 15, 0, 123456000, time.UTC), time.Date(2026, 11, 21, 8, 15, 0, 0, time.UTC),
		time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), int64(42), 2.5, 1.25, true, "x'y", []any{int64(1), int64(2)},
		map[string]any{"k": "v"}, (*string)(nil)}
	got := []any{ts, tz, d, i, f, dec, b, s, l, m, n}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	if _, err := db.Query("SELECT nope FROM t"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("bad column: got %v, want DuckDB's binder error", err)
	}
	if _, err := db.Query("SELECT ?", 1); err == nil {
		t.Error("a statement with arguments: got no error")
	}
}

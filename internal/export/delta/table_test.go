package delta

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
)

type testRow struct {
	Date   string            `parquet:"date"`
	ID     int64             `parquet:"id"`
	Name   string            `parquet:"name"`
	Score  *float64          `parquet:"score,optional"`
	At     time.Time         `parquet:"at,timestamp(microsecond)"`
	OK     bool              `parquet:"ok"`
	Labels map[string]string `parquet:"labels"`
	Stages []int64           `parquet:"stages,list"`
}

func testRows(n, from int) []testRow {
	rows := make([]testRow, n)
	base := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i := range rows {
		id := from + i
		rows[i] = testRow{
			Date: fmt.Sprintf("2026-11-%02d", 20+id%2), ID: int64(id), Name: fmt.Sprintf("row-%04d", id),
			At: base.Add(time.Duration(id) * 1500 * time.Microsecond), OK: id%3 == 0,
			Labels: map[string]string{"k": fmt.Sprint(id)}, Stages: []int64{int64(id), int64(id + 1)},
		}
		if id%4 != 0 {
			s := float64(id) / 2
			rows[i].Score = &s
		}
	}
	return rows
}

func TestAppendWritesLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{Name: "t", PartitionBy: []string{"date"}, CheckpointInterval: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		res, err := tbl.Append(ctx, testRows(10, i*10), AppendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Version, int64(i+1); got != want {
			t.Errorf("append %d: got version %d, want %d", i, got, want)
		}
		if got, want := res.Files, 2; got != want {
			t.Errorf("append %d: got %d files, want %d", i, got, want)
		}
	}
	tb := checkTable(t, dir)
	t.Logf("%+v", tb)
}

func checkTable(t *testing.T, dir string) *deltacheck.Table {
	t.Helper()
	tb, err := deltacheck.Check(os.DirFS(dir))
	if err != nil {
		t.Fatalf("deltacheck: %v", err)
	}
	return tb
}

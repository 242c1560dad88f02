package delta

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// The same table as a later sparkdx writes it: one nullable column more.
type evolvedRow struct {
	Date  string   `parquet:"date"`
	ID    int64    `parquet:"id"`
	Name  string   `parquet:"name"`
	Score *float64 `parquet:"score,optional"`
	Host  *string  `parquet:"host,optional"`
}

type originalRow struct {
	Date  string   `parquet:"date"`
	ID    int64    `parquet:"id"`
	Name  string   `parquet:"name"`
	Score *float64 `parquet:"score,optional"`
}

// TestSchemaEvolution: a table written by one sparkdx is opened by a later
// one whose row type adds a nullable column; the table gains it with one
// metaData commit (protocol unchanged), old rows read it as null and new
// rows carry it, for sparkdx, delta-rs and Spark with Delta Lake. A row
// type that drops a column, changes one or adds a required one is refused.
func TestSchemaEvolution(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := Options{Name: "evolve", PartitionBy: []string{"date"}}
	v1, err := Open[originalRow](ctx, NewDirStore(dir), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Append(ctx, []originalRow{{Date: "2026-11-21", ID: 1, Name: "a"}, {Date: "2026-11-22", ID: 2, Name: "b"}}, AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	before := checkTable(t, dir)

	v2, err := Open[evolvedRow](ctx, NewDirStore(dir), opts)
	if err != nil {
		t.Fatalf("open with an added nullable column: %v", err)
	}
	host := "node-1"
	if _, err := v2.Append(ctx, []evolvedRow{{Date: "2026-11-22", ID: 3, Name: "c", Host: &host}}, AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	after := checkTable(t, dir)
	if after.Version != before.Version+2 || after.Rows != 3 || after.MinReader != 1 || after.MinWriter != 2 ||
		!strings.Contains(after.SchemaString, `"name":"host"`) {
		t.Errorf("after evolution: version %d, %d rows, protocol %d/%d, schema %s; want version %d, 3 rows, 1/2, a host column",
			after.Version, after.Rows, after.MinReader, after.MinWriter, after.SchemaString, before.Version+2)
	}
	b, err := os.ReadFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", before.Version+1)))
	if err != nil || !strings.Contains(string(b), `"operation":"ADD COLUMNS"`) || !strings.Contains(string(b), `"metaData"`) {
		t.Errorf("version %d is not one ADD COLUMNS metaData commit: %s %v", before.Version+1, b, err)
	}
	// Opening again (another writer of the later version) changes nothing.
	if _, err := Open[evolvedRow](ctx, NewDirStore(dir), opts); err != nil || checkTable(t, dir).Version != after.Version {
		t.Errorf("reopen: %v, version %d, want %d", err, checkTable(t, dir).Version, after.Version)
	}

	type dropped struct {
		Date string `parquet:"date"`
		ID   int64  `parquet:"id"`
	}
	type changed struct {
		Date  string   `parquet:"date"`
		ID    string   `parquet:"id"`
		Name  string   `parquet:"name"`
		Score *float64 `parquet:"score,optional"`
		Host  *string  `parquet:"host,optional"`
	}
	type required struct {
		Date  string   `parquet:"date"`
		ID    int64    `parquet:"id"`
		Name  string   `parquet:"name"`
		Score *float64 `parquet:"score,optional"`
		Host  *string  `parquet:"host,optional"`
		Cores int64    `parquet:"cores"`
	}
	for name, open := range map[string]func() error{
		"the original row type (an older sparkdx)": func() error { _, err := Open[originalRow](ctx, NewDirStore(dir), opts); return err },
		"a dropped column":                         func() error { _, err := Open[dropped](ctx, NewDirStore(dir), opts); return err },
		"a changed type":                           func() error { _, err := Open[changed](ctx, NewDirStore(dir), opts); return err },
		"a required column":                        func() error { _, err := Open[required](ctx, NewDirStore(dir), opts); return err },
	} {
		if err := open(); err == nil {
			t.Errorf("%s: opened, want refused", name)
		}
	}
	if v := checkTable(t, dir).Version; v != after.Version {
		t.Errorf("refused writers changed the table: version %d, want %d", v, after.Version)
	}
	sparktest.Live(t)
	// Other engines read every row, the new column null where it was not written.
	parent, name := filepath.Split(dir)
	for _, r := range []deltaread.Reader{deltaread.DeltaRS(t, nil), deltaread.Spark(t, nil)} {
		v := r.Read(strings.TrimSuffix(parent, "/"), []string{name}, -1)[name]
		if v.Rows != 3 || v.Version != after.Version || !strings.Contains(strings.Join(v.Columns, ","), "host") {
			t.Errorf("%s reads version %d, %d rows, columns %v; want version %d, 3 rows with host", r.Name, v.Version, v.Rows, v.Columns, after.Version)
		}
	}
}

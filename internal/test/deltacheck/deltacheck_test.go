package deltacheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
)

type row struct {
	Day string    `parquet:"day"`
	N   int64     `parquet:"n"`
	At  time.Time `parquet:"at,timestamp(microsecond)"`
}

// writeTable writes 7 appends of 4 rows: checkpoints at versions 3 and 6.
func writeTable(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	tbl, err := delta.Open[row](ctx, delta.NewDirStore(dir), delta.Options{PartitionBy: []string{"day"}, CheckpointInterval: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		rows := make([]row, 4)
		for j := range rows {
			rows[j] = row{Day: "d" + string(rune('a'+j%2)), N: int64(i*4 + j), At: time.Unix(int64(i*4+j), 0)}
		}
		if _, err := tbl.Append(ctx, rows, delta.AppendOptions{TxnAppID: "w", TxnVersion: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func logFile(dir string, v int) string {
	return filepath.Join(dir, "_delta_log", strings.Repeat("0", 19)+string(rune('0'+v))+".json")
}

// editLines rewrites commit v line by line.
func editLines(t *testing.T, dir string, v int, edit func(lines []string) []string) {
	t.Helper()
	b, err := os.ReadFile(logFile(dir, v))
	if err != nil {
		t.Fatal(err)
	}
	lines := edit(strings.Split(strings.TrimSpace(string(b)), "\n"))
	if err := os.WriteFile(logFile(dir, v), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func firstAdd(t *testing.T, dir string, v int) (line int, add map[string]any) {
	b, _ := os.ReadFile(logFile(dir, v))
	for i, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]map[string]any
		json.Unmarshal(l, &m)
		if a, ok := m["add"]; ok {
			return i, a
		}
	}
	t.Fatalf("no add in version %d", v)
	return 0, nil
}

func TestCheckGoodTable(t *testing.T) {
	dir := writeTable(t)
	tb, err := deltacheck.Check(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version != 7 || tb.Rows != 28 || len(tb.Files) != 14 || tb.LastCheckpoint != 6 || tb.Txns["w"] != 6 {
		t.Errorf("got version %d, %d rows, %d files, last checkpoint %d, txn w=%d; want 7, 28, 14, 6, 6",
			tb.Version, tb.Rows, len(tb.Files), tb.LastCheckpoint, tb.Txns["w"])
	}
	if tb.MinReader != 1 || tb.MinWriter != 2 {
		t.Errorf("got protocol %d/%d, want 1/2", tb.MinReader, tb.MinWriter)
	}
}

func TestCheckFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"gap", func(t *testing.T, dir string) { os.Remove(logFile(dir, 4)) }, "version 4 missing"},
		{"wrong numRecords", func(t *testing.T, dir string) {
			i, add := firstAdd(t, dir, 7)
			add["stats"] = strings.Replace(add["stats"].(string), `"numRecords":2`, `"numRecords":3`, 1)
			editLines(t, dir, 7, func(l []string) []string {
				b, _ := json.Marshal(map[string]any{"add": add})
				l[i] = string(b)
				return l
			})
		}, "numRecords 3, file has 2 rows"},
		{"missing data file", func(t *testing.T, dir string) {
			_, add := firstAdd(t, dir, 7)
			os.Remove(filepath.Join(dir, add["path"].(string)))
		}, "no such file"},
		{"truncated data file", func(t *testing.T, dir string) {
			_, add := firstAdd(t, dir, 7)
			p := filepath.Join(dir, add["path"].(string))
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-1], 0o644)
		}, "bytes"},
		{"two metaData", func(t *testing.T, dir string) {
			editLines(t, dir, 0, func(l []string) []string {
				for _, x := range l {
					if strings.HasPrefix(x, `{"metaData"`) {
						return append(l, x)
					}
				}
				return l
			})
		}, "more than one metaData"},
		{"checkpoint disagrees with commits", func(t *testing.T, dir string) {
			i, _ := firstAdd(t, dir, 2)
			editLines(t, dir, 2, func(l []string) []string { return append(l[:i], l[i+1:]...) })
		}, "checkpoint 3 differs"},
		{"_last_checkpoint size", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "_delta_log", "_last_checkpoint"), []byte(`{"version":6,"size":99}`), 0o644)
		}, "_last_checkpoint size 99"},
		{"missing required field", func(t *testing.T, dir string) {
			i, add := firstAdd(t, dir, 1)
			delete(add, "size")
			editLines(t, dir, 1, func(l []string) []string {
				b, _ := json.Marshal(map[string]any{"add": add})
				l[i] = string(b)
				return l
			})
		}, `missing required field "size"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTable(t)
			tt.damage(t, dir)
			_, err := deltacheck.Check(os.DirFS(dir))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

package delta

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// seedTable writes a small real table and returns its directory.
func seedTable(f *testing.F) string {
	dir := f.TempDir()
	ctx := context.Background()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}, CheckpointInterval: 2})
	if err != nil {
		f.Fatal(err)
	}
	for i := range 2 {
		if _, err := tbl.Append(ctx, testRows(3, i*3), AppendOptions{TxnAppID: "seed", TxnVersion: int64(i)}); err != nil {
			f.Fatal(err)
		}
	}
	return dir
}

func FuzzDecodeCommit(f *testing.F) {
	dir := seedTable(f)
	for v := range int64(3) {
		b, err := os.ReadFile(filepath.Join(dir, "_delta_log", commitName(v)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"add":{"path":null}}` + "\n" + `{"txn":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		actions, err := decodeCommit("fuzz.json", data)
		if err != nil {
			return
		}
		s := newSnapshot()
		s.apply(actions) // must not panic on any decodable commit
		if _, err := encodeCommit(actions); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	})
}

func FuzzDecodeCheckpoint(f *testing.F) {
	dir := seedTable(f)
	b, err := os.ReadFile(filepath.Join(dir, "_delta_log", checkpointName(2)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		actions, err := decodeCheckpoint("fuzz.checkpoint.parquet", data)
		if err != nil {
			return
		}
		newSnapshot().apply(actions)
	})
}

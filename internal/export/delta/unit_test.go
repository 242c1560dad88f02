package delta

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRedactor(t *testing.T) {
	red, err := NewRedactor("")
	if err != nil {
		t.Fatal(err)
	}
	app := red.ForApp([][2]string{{"spark.redaction.regex", "(?i)jdbc"}})
	tests := []struct {
		r          *Redactor
		key, value string
		want       string
	}{
		{red, "spark.executor.memory", "4g", "4g"},
		{red, "spark.hadoop.fs.s3a.secret.key", "abc", Redacted},
		{red, "spark.ssl.keyStorePassword", "abc", Redacted},
		{red, "spark.custom", "my-token-is-x", Redacted},
		{red, "spark.hadoop.fs.s3a.access.key", "AKIA", Redacted},
		{red, "spark.hadoop.fs.s3a.accessXkey", "AKIA", "AKIA"},
		{red, "spark.url", "jdbc:pg://u@h", "jdbc:pg://u@h"},
		{app, "spark.url", "jdbc:pg://u@h", Redacted},
		{app, "spark.secret", "x", Redacted}, // the default still applies
	}
	for _, tt := range tests {
		if got := tt.r.Value(tt.key, tt.value); got != tt.want {
			t.Errorf("Value(%q, %q): got %q, want %q", tt.key, tt.value, got, tt.want)
		}
	}
	if _, err := NewRedactor("("); err == nil {
		t.Error("NewRedactor(\"(\"): got no error, want one")
	}
	if got := red.ForApp([][2]string{{"spark.redaction.regex", "("}}); got != red {
		t.Error("ForApp with an invalid app regex: want the default redactor")
	}
}

func TestAppendIdempotent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		version int64
		skipped bool
	}{{1, false}, {1, true}, {0, true}, {2, false}, {2, true}}
	for i, s := range steps {
		res, err := tbl.Append(ctx, testRows(2, i*2), AppendOptions{TxnAppID: "stream-1", TxnVersion: s.version})
		if err != nil {
			t.Fatal(err)
		}
		if res.Skipped != s.skipped {
			t.Errorf("step %d (txn version %d): got skipped=%v, want %v", i, s.version, res.Skipped, s.skipped)
		}
	}
	// A second writer opened later sees the same transactions.
	other, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := other.Append(ctx, testRows(2, 0), AppendOptions{TxnAppID: "stream-1", TxnVersion: 2}); err != nil || !res.Skipped {
		t.Errorf("second writer: got %+v, %v; want skipped", res, err)
	}
	tb := checkTable(t, dir)
	if tb.Rows != 4 || tb.Txns["stream-1"] != 2 {
		t.Errorf("got %d rows, txn version %d; want 4 rows, 2", tb.Rows, tb.Txns["stream-1"])
	}
}

type otherRow struct {
	Date string `parquet:"date"`
	X    int64  `parquet:"x"`
}

func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"other schema", func(t *testing.T, dir string) {
			if _, err := Open[otherRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}}); err != nil {
				t.Fatal(err)
			}
		}, "schema differs"},
		{"other partitioning", func(t *testing.T, dir string) {
			if _, err := Open[testRow](ctx, NewDirStore(dir), Options{}); err != nil {
				t.Fatal(err)
			}
		}, "partitioned by"},
		{"newer protocol", func(t *testing.T, dir string) {
			if _, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}}); err != nil {
				t.Fatal(err)
			}
			line := `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]}}` + "\n"
			if err := os.WriteFile(filepath.Join(dir, "_delta_log", commitName(1)), []byte(line), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "needs reader 3 / writer 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			_, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	type bad struct {
		At time.Time `parquet:"at"` // nanoseconds: not a Delta timestamp
	}
	if _, err := Open[bad](ctx, NewDirStore(t.TempDir()), Options{}); err == nil || !strings.Contains(err.Error(), "microsecond") {
		t.Errorf("nanosecond timestamp: got %v, want a microsecond error", err)
	}
}

func TestPartitionEscaping(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
	if err != nil {
		t.Fatal(err)
	}
	values := []string{"a/b:c", "100%", "x y", "é", ""}
	var rows []testRow
	for i, v := range values {
		r := testRows(1, i)[0]
		r.Date = v
		rows = append(rows, r)
	}
	if _, err := tbl.Append(ctx, rows, AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	tb := checkTable(t, dir) // opens every file through the decoded add path
	got := map[string]bool{}
	for _, f := range tb.Files {
		got[f.PartitionValues["date"]] = true
		if strings.Count(f.Path, "/") != 1 {
			t.Errorf("file %s: want one directory level", f.Path)
		}
	}
	for _, v := range values {
		if !got[v] {
			t.Errorf("partition %q missing; got %v", v, got)
		}
	}
}

func TestBatcher(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBatcher(tbl, 10, 20*time.Millisecond)
	for i := range 25 {
		if err := b.Add(ctx, testRows(1, i)...); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.Pending(); got != 5 {
		t.Errorf("after 25 rows with max 10: got %d pending, want 5", got)
	}
	if got := tbl.Version(); got != 2 {
		t.Errorf("after 25 rows with max 10: got version %d, want 2", got)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- b.Run(runCtx, ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for b.Pending() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	b.Add(ctx, testRows(3, 100)...)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if tb := checkTable(t, dir); tb.Rows != 28 {
		t.Errorf("got %d rows in the table, want 28", tb.Rows)
	}
}

// flakyStore reports a failure for a commit that it did store, as a
// timed-out request that reached S3 would.
type flakyStore struct {
	Storage
	failNext bool
}

func (f *flakyStore) Put(ctx context.Context, key string, data []byte, exclusive bool) error {
	err := f.Storage.Put(ctx, key, data, exclusive)
	if err == nil && f.failNext && strings.HasSuffix(key, ".json") {
		f.failNext = false
		return context.DeadlineExceeded
	}
	return err
}

func TestAmbiguousCommitCountsOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := &flakyStore{Storage: NewDirStore(dir)}
	tbl, err := Open[testRow](ctx, st, Options{PartitionBy: []string{"date"}})
	if err != nil {
		t.Fatal(err)
	}
	st.failNext = true
	res, err := tbl.Append(ctx, testRows(4, 0), AppendOptions{})
	if err != nil || res.Version != 1 {
		t.Fatalf("got %+v, %v; want version 1 committed despite the reported failure", res, err)
	}
	if _, err := tbl.Append(ctx, testRows(4, 4), AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	if tb := checkTable(t, dir); tb.Rows != 8 || tb.Version != 2 {
		t.Errorf("got %d rows at version %d, want 8 at 2", tb.Rows, tb.Version)
	}
}

// TestBatcherFailing: while appends fail, the batcher says so through
// OnFlush and keeps at most its bounded batches, dropping the oldest rows
// and counting them.
func TestBatcherFailing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl, err := Open[testRow](ctx, NewDirStore(dir), Options{PartitionBy: []string{"date"}})
	if err != nil {
		t.Fatal(err)
	}
	// The table's log becomes a file: every commit fails (as on a full
	// disk, whatever the user: root writes to read-only directories).
	logDir := filepath.Join(dir, "_delta_log")
	if err := os.RemoveAll(logDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewBatcher(tbl, 10, time.Hour)
	var heard []error
	b.OnFlush = func(err error) { heard = append(heard, err) }
	for i := range 150 {
		b.Add(ctx, testRows(1, i)...)
	}
	if len(heard) == 0 || heard[len(heard)-1] == nil {
		t.Errorf("OnFlush heard %v, want the failures", heard)
	}
	if got, dropped := b.Pending(), b.Dropped(); got != bufferedBatches*10 || dropped != 150-bufferedBatches*10 {
		t.Errorf("got %d rows waiting and %d dropped, want %d and %d", got, dropped, bufferedBatches*10, 150-bufferedBatches*10)
	}
}

package delta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// The protocol sparkdx writes: readable by every Delta reader, no table
// features. Tables with a higher protocol are refused rather than damaged.
const (
	readerVersion = 1
	writerVersion = 2
)

// Options configures a table.
type Options struct {
	Name        string   // metaData.name
	Description string   // metaData.description
	PartitionBy []string // string columns of the row type; files are grouped by their values
	// CheckpointInterval is how many commits lie between checkpoints
	// (default 10, as in Delta's delta.checkpointInterval).
	CheckpointInterval int64
	// MaxAttempts bounds commit attempts lost to concurrent writers (default 100).
	MaxAttempts int
	EngineInfo  string       // commitInfo.engineInfo, e.g. "sparkdx/0.1.0"
	Logger      *slog.Logger // checkpoint failures (the commit itself succeeded); nil discards
}

// Table appends rows of type T (a struct; its parquet tags name the
// columns) to one Delta table. It is safe for concurrent use, and any
// number of Tables, in any processes, may append to the same table.
type Table[T any] struct {
	store        Storage
	opts         Options
	schema       *parquet.Schema
	schemaString string
	statCols     []statColumn
	partIdx      []int
	codec        *zstd.Codec // shared so its encoder pool is reused across files

	mu   sync.Mutex
	snap *snapshot
}

// AppendOptions makes an append idempotent with a Delta transaction
// identifier: when the table already records TxnAppID at TxnVersion or
// later, the append is skipped.
type AppendOptions struct {
	TxnAppID   string
	TxnVersion int64
}

// Result says what an append did.
type Result struct {
	Version  int64 // commit version written (or the table version when skipped)
	Files    int   // data files added
	Rows     int
	Skipped  bool // the transaction identifier was already committed
	Attempts int  // commit attempts, 1 without contention
}

// Open returns the table stored in st, creating it (version 0: protocol and
// metaData) when the log is empty.
func Open[T any](ctx context.Context, st Storage, opts Options) (*Table[T], error) {
	rt := reflect.TypeFor[T]()
	if rt.Kind() != reflect.Struct {
		return nil, fmt.Errorf("delta: row type %v is not a struct", rt)
	}
	if opts.CheckpointInterval <= 0 {
		opts.CheckpointInterval = 10
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 100
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	t := &Table[T]{store: st, opts: opts, schema: parquet.SchemaOf(new(T)), codec: &zstd.Codec{}}
	var err error
	if t.schemaString, err = deltaSchema(t.schema); err != nil {
		return nil, err
	}
	t.statCols = statColumnsOf(rt, opts.PartitionBy)
	for _, p := range opts.PartitionBy {
		idx := -1
		for i := 0; i < rt.NumField(); i++ {
			if parquetName(rt.Field(i)) == p && rt.Field(i).Type.Kind() == reflect.String {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("delta: partition column %q is not a string column of %v", p, rt)
		}
		t.partIdx = append(t.partIdx, idx)
	}
	if v, ok := st.(interface{ verifyExclusive(context.Context) error }); ok {
		if err := v.verifyExclusive(ctx); err != nil {
			return nil, err
		}
	}
	if t.snap, err = loadSnapshot(ctx, st); err != nil {
		return nil, err
	}
	if t.snap.version < 0 {
		if _, err := t.commit(ctx, change{}); err != nil {
			return nil, err
		}
	}
	if err := t.checkTable(); err != nil {
		var behind *schemaBehindError
		if !errors.As(err, &behind) {
			return nil, err
		}
		if err := t.addColumns(ctx); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// errEvolved stops an ADD COLUMNS commit another writer made first.
var errEvolved = errors.New("delta: the table has the row type's columns already")

// schemaBehindError says the table lacks nullable columns the row type has.
type schemaBehindError struct{ added []string }

func (e *schemaBehindError) Error() string {
	return fmt.Sprintf("delta: the table lacks columns %v of the row type", e.added)
}

// addColumns evolves the table's schema to the row type's by a metaData
// commit that adds its new nullable columns (Delta's ADD COLUMNS): old
// files read them as null, the protocol does not change.
func (t *Table[T]) addColumns(ctx context.Context) error {
	var added []string
	evolve := func(s *snapshot) error {
		added = nil
		if s.meta.SchemaString == t.schemaString {
			return errEvolved // another writer evolved it meanwhile
		}
		a, err := addedColumns(s.meta.SchemaString, t.schemaString)
		if err != nil {
			return fmt.Errorf("delta: table schema differs from row type %v: %w", reflect.TypeFor[T](), err)
		}
		added = a
		return nil
	}
	t.mu.Lock()
	meta := *t.snap.meta
	t.mu.Unlock()
	meta.SchemaString = t.schemaString
	_, err := t.commit(ctx, change{meta: &meta, op: "ADD COLUMNS", check: evolve,
		params: map[string]string{"columns": t.schemaString}})
	if err != nil && !errors.Is(err, errEvolved) {
		return err
	}
	t.opts.Logger.Info("delta: columns added to the table", "columns", added)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.checkTable()
}

// Version returns the latest table version this Table has seen.
func (t *Table[T]) Version() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snap.version
}

// checkTable refuses tables this writer cannot append to correctly.
func (t *Table[T]) checkTable() error {
	s := t.snap
	if s.protocol == nil || s.meta == nil {
		return fmt.Errorf("delta: version %d: no protocol or metaData action in the log", s.version)
	}
	if s.protocol.MinReaderVersion > readerVersion || s.protocol.MinWriterVersion > writerVersion {
		return fmt.Errorf("delta: table needs reader %d / writer %d; sparkdx writes reader %d / writer %d",
			s.protocol.MinReaderVersion, s.protocol.MinWriterVersion, readerVersion, writerVersion)
	}
	if s.meta.SchemaString != t.schemaString {
		added, err := addedColumns(s.meta.SchemaString, t.schemaString)
		if err != nil {
			return fmt.Errorf("delta: table schema differs from row type %v: %w", reflect.TypeFor[T](), err)
		}
		if len(added) > 0 {
			return &schemaBehindError{added: added}
		}
	}
	if fmt.Sprint(s.meta.PartitionColumns) != fmt.Sprint(t.opts.PartitionBy) && len(s.meta.PartitionColumns)+len(t.opts.PartitionBy) > 0 {
		return fmt.Errorf("delta: table partitioned by %v, want %v", s.meta.PartitionColumns, t.opts.PartitionBy)
	}
	return nil
}

// Append writes rows as one data file per partition and commits them in one
// new table version. With opts.TxnAppID set the append happens at most once.
func (t *Table[T]) Append(ctx context.Context, rows []T, opts AppendOptions) (Result, error) {
	if opts.TxnAppID != "" {
		t.mu.Lock()
		err := t.snap.update(ctx, t.store)
		done := err == nil && t.committed(opts)
		v := t.snap.version
		t.mu.Unlock()
		if err != nil {
			return Result{}, err
		}
		if done {
			return Result{Version: v, Skipped: true}, nil
		}
	}
	adds, err := t.writeFiles(ctx, rows)
	if err != nil {
		return Result{}, err
	}
	res, err := t.commit(ctx, change{adds: adds, txn: opts})
	res.Rows = len(rows)
	if res.Skipped {
		res.Files = 0
	}
	return res, err
}

// HasTxn says whether the table, as this Table last read it (at Open or
// an Append), has transaction appID at version or later.
func (t *Table[T]) HasTxn(appID string, version int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.committed(AppendOptions{TxnAppID: appID, TxnVersion: version})
}

// TxnVersion is the version the table, as this Table last read it, records
// for transaction appID; ok is false when it records none.
func (t *Table[T]) TxnVersion(appID string) (version int64, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	txn, ok := t.snap.txns[appID]
	return txn.Version, ok
}

func (t *Table[T]) committed(opts AppendOptions) bool {
	txn, ok := t.snap.txns[opts.TxnAppID]
	return ok && txn.Version >= opts.TxnVersion
}

// change is what one commit does: a blind append (adds, with an optional
// transaction identifier), or a rewrite (Optimize: removes and adds that
// change no data).
type change struct {
	adds    []*Add
	removes []*Remove
	txn     AppendOptions
	// op and params name the operation in commitInfo ("" is an append).
	op     string
	params map[string]string
	// check runs on the latest snapshot before each attempt: an error is a
	// conflict no retry resolves (a file to remove is already gone).
	check func(*snapshot) error
	// meta, when set, is a new metaData action (schema evolution).
	meta *MetaData
}

// commit writes the next log version with the change (and protocol and
// metaData when the table is new), retrying on versions lost to other
// writers.
func (t *Table[T]) commit(ctx context.Context, c change) (Result, error) {
	opts := c.txn
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	for attempt := 1; attempt <= t.opts.MaxAttempts; attempt++ {
		if err := t.snap.update(ctx, t.store); err != nil {
			return Result{}, err
		}
		create := t.snap.version < 0
		if !create && c.meta == nil {
			if err := t.checkTable(); err != nil {
				return Result{}, err
			}
			if c.adds == nil && c.removes == nil && c.meta == nil && opts.TxnAppID == "" {
				return Result{Version: t.snap.version, Attempts: attempt}, nil // Open lost the creation race
			}
		}
		if c.check != nil {
			if err := c.check(t.snap); err != nil {
				return Result{}, err
			}
		}
		if opts.TxnAppID != "" && t.committed(opts) {
			return Result{Version: t.snap.version, Skipped: true, Attempts: attempt}, nil
		}
		v := t.snap.version + 1
		actions := t.actions(now, v, create, c)
		data, err := encodeCommit(actions)
		if err != nil {
			return Result{}, fmt.Errorf("delta: encode version %d: %w", v, err)
		}
		err = t.store.Put(ctx, logDir+commitName(v), data, true)
		if errors.Is(err, ErrExist) {
			continue
		}
		if err != nil && !t.landed(v, data) {
			return Result{}, fmt.Errorf("delta: commit version %d: %w", v, err)
		}
		t.snap.apply(actions)
		t.snap.version = v
		if v > 0 && v%t.opts.CheckpointInterval == 0 {
			if err := t.checkpoint(ctx); err != nil {
				t.opts.Logger.Warn("delta checkpoint failed; the commit stands", "version", v, "err", err)
			}
		}
		return Result{Version: v, Files: len(c.adds), Attempts: attempt}, nil
	}
	return Result{}, fmt.Errorf("delta: commit: lost %d attempts to concurrent writers", t.opts.MaxAttempts)
}

// landed reports whether a commit whose Put failed ambiguously (a timeout or
// a cancelled request that reached the store) is in the log anyway: then it
// must count as done, or a retry would append the same rows twice. Each
// commit carries a fresh commitInfo.txnId, so equal bytes mean it is ours.
func (t *Table[T]) landed(v int64, data []byte) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := t.store.Get(ctx, logDir+commitName(v))
	return err == nil && bytes.Equal(got, data)
}

func (t *Table[T]) actions(now time.Time, v int64, create bool, c change) []Action {
	op, params, blind := "WRITE", map[string]string{"mode": "Append"}, true
	switch {
	case create:
		op = "CREATE TABLE"
		params = map[string]string{}
	case c.op != "":
		op, params, blind = c.op, c.params, false
	}
	opts := c.txn
	actions := []Action{{CommitInfo: map[string]any{
		"timestamp": now.UnixMilli(), "operation": op, "operationParameters": params,
		"readVersion": v - 1, "isBlindAppend": blind, "engineInfo": t.opts.EngineInfo,
		"txnId": uuid.NewString(),
	}}}
	if create {
		parts := append([]string{}, t.opts.PartitionBy...)
		actions = append(actions,
			Action{Protocol: &Protocol{MinReaderVersion: readerVersion, MinWriterVersion: writerVersion}},
			Action{MetaData: &MetaData{ID: uuid.NewString(), Name: t.opts.Name, Description: t.opts.Description,
				Format: Format{Provider: "parquet", Options: map[string]string{}}, SchemaString: t.schemaString,
				PartitionColumns: parts, CreatedTime: now.UnixMilli(), Configuration: map[string]string{}}})
	}
	if c.meta != nil {
		actions = append(actions, Action{MetaData: c.meta})
	}
	for _, r := range c.removes {
		actions = append(actions, Action{Remove: r})
	}
	for _, a := range c.adds {
		actions = append(actions, Action{Add: a})
	}
	if opts.TxnAppID != "" {
		actions = append(actions, Action{Txn: &Txn{AppID: opts.TxnAppID, Version: opts.TxnVersion, LastUpdated: now.UnixMilli()}})
	}
	return actions
}

// checkpoint writes the checkpoint of the current snapshot and points
// _last_checkpoint at it. Two writers checkpointing the same version write
// equivalent files, so plain overwrites are safe.
func (t *Table[T]) checkpoint(ctx context.Context) error {
	rows := checkpointRows(t.snap)
	data, err := encodeCheckpoint(rows)
	if err != nil {
		return fmt.Errorf("delta: checkpoint %d: %w", t.snap.version, err)
	}
	if err := t.store.Put(ctx, logDir+checkpointName(t.snap.version), data, false); err != nil {
		return err
	}
	if lc, ok, err := readLastCheckpoint(ctx, t.store); err == nil && ok && lc.Version > t.snap.version {
		return nil
	}
	lc := lastCheckpoint{Version: t.snap.version, Size: int64(len(rows)), SizeInBytes: int64(len(data)), NumOfAddFiles: int64(len(t.snap.files))}
	return t.store.Put(ctx, logDir+"_last_checkpoint", encodeLastCheckpoint(lc), false)
}

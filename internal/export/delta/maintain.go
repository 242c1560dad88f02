package delta

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// Maintenance keeps a table that only ever grows healthy: Optimize
// compacts the small files appends leave (one per flush per writer),
// Vacuum deletes the files no version needs any more (the ones Optimize
// replaced, and the orphans of writers that crashed before their commit),
// CleanLog deletes log entries a checkpoint has made redundant. Each is an
// ordinary Delta operation that other engines read through.

// Defaults of the maintenance operations, as Delta Lake's own.
const (
	// DefaultTargetFileBytes is the size Optimize packs small files into
	// (Delta's spark.databricks.delta.optimize.maxFileSize is 1 GiB; the
	// tables here are small, a reader wants a few files per partition).
	DefaultTargetFileBytes = 128 << 20
	// DefaultVacuumRetention is how long an unreferenced file stays
	// readable for time travel and slow readers
	// (delta.deletedFileRetentionDuration, 7 days).
	DefaultVacuumRetention = 7 * 24 * time.Hour
	// DefaultLogRetention is how long log entries are kept
	// (delta.logRetentionDuration, 30 days).
	DefaultLogRetention = 30 * 24 * time.Hour
)

// OptimizeOptions tunes Optimize.
type OptimizeOptions struct {
	TargetFileBytes int64 // files below this size are compacted; default DefaultTargetFileBytes
	MinFiles        int   // a partition is compacted when it has at least this many small files; default 2
}

// OptimizeResult says what Optimize did.
type OptimizeResult struct {
	Version      int64 // the commit written; the table version when nothing was done
	FilesBefore  int   // live data files before
	FilesAfter   int   // and after
	FilesRemoved int
	FilesAdded   int
	Rows         int64 // rows rewritten
	Partitions   int   // partitions compacted
}

// Optimize rewrites each partition's small files into files of up to
// TargetFileBytes, committed as one version of remove and add actions with
// dataChange false: readers see the same rows, and appends that land
// meanwhile are kept. The rows of every file are read back and counted
// against its statistics before anything is committed. A file another
// writer removed meanwhile is a conflict: nothing is committed, and the
// files written become orphans for Vacuum.
func (t *Table[T]) Optimize(ctx context.Context, o OptimizeOptions) (OptimizeResult, error) {
	if o.TargetFileBytes <= 0 {
		o.TargetFileBytes = DefaultTargetFileBytes
	}
	if o.MinFiles < 2 {
		o.MinFiles = 2
	}
	t.mu.Lock()
	err := t.snap.update(ctx, t.store)
	files := make([]*Add, 0, len(t.snap.files))
	for _, a := range t.snap.files {
		files = append(files, a)
	}
	version := t.snap.version
	t.mu.Unlock()
	if err != nil {
		return OptimizeResult{}, err
	}
	res := OptimizeResult{Version: version, FilesBefore: len(files), FilesAfter: len(files)}
	// Small files by partition, oldest first, packed into bins of up to
	// the target size.
	byPart := map[string][]*Add{}
	var parts []string
	for _, a := range files {
		if a.Size >= o.TargetFileBytes {
			continue
		}
		k := t.partitionKey(a.PartitionValues)
		if byPart[k] == nil {
			parts = append(parts, k)
		}
		byPart[k] = append(byPart[k], a)
	}
	slices.Sort(parts)
	var removes []*Remove
	var adds []*Add
	now := time.Now().UnixMilli()
	for _, k := range parts {
		small := byPart[k]
		if len(small) < o.MinFiles {
			continue
		}
		slices.SortFunc(small, func(a, b *Add) int {
			return cmp.Or(cmp.Compare(a.ModificationTime, b.ModificationTime), strings.Compare(a.Path, b.Path))
		})
		res.Partitions++
		for len(small) > 0 {
			n, size := 0, int64(0)
			for n < len(small) && (n == 0 || size+small[n].Size <= o.TargetFileBytes) {
				size += small[n].Size
				n++
			}
			bin := small[:n]
			small = small[n:]
			if len(bin) < 2 {
				continue // nothing to gain from rewriting one file
			}
			rows, err := t.readFiles(ctx, bin)
			if err != nil {
				return res, err
			}
			written, err := t.writeFiles(ctx, rows)
			if err != nil {
				return res, err
			}
			for _, a := range written {
				a.DataChange = false
			}
			for _, a := range bin {
				removes = append(removes, &Remove{Path: a.Path, DeletionTimestamp: now, DataChange: false})
			}
			adds = append(adds, written...)
			res.Rows += int64(len(rows))
		}
	}
	if len(removes) == 0 {
		return res, nil
	}
	gone := func(s *snapshot) error {
		for _, r := range removes {
			if _, ok := s.files[r.Path]; !ok {
				return fmt.Errorf("delta: optimize: %s was removed by another writer; nothing committed", r.Path)
			}
		}
		return nil
	}
	c, err := t.commit(ctx, change{adds: adds, removes: removes, op: "OPTIMIZE", check: gone,
		params: map[string]string{"predicate": "[]", "targetFileBytes": fmt.Sprint(o.TargetFileBytes)}})
	if err != nil {
		return res, err
	}
	res.Version = c.Version
	res.FilesRemoved, res.FilesAdded = len(removes), len(adds)
	res.FilesAfter = res.FilesBefore - len(removes) + len(adds)
	return res, nil
}

// partitionKey orders a file's partition values by the table's columns.
func (t *Table[T]) partitionKey(values map[string]string) string {
	var b strings.Builder
	for _, p := range t.opts.PartitionBy {
		b.WriteString(p + "=" + values[p] + "/")
	}
	return b.String()
}

// readFiles reads the rows of data files, checking each file's row count
// against the numRecords of its statistics.
func (t *Table[T]) readFiles(ctx context.Context, files []*Add) ([]T, error) {
	var rows []T
	for _, a := range files {
		key, err := url.PathUnescape(a.Path)
		if err != nil {
			return nil, fmt.Errorf("delta: optimize: path %q: %w", a.Path, err)
		}
		data, err := t.store.Get(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("delta: optimize: %w", err)
		}
		got, err := parquet.Read[T](bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, fmt.Errorf("delta: optimize: read %s: %w", key, err)
		}
		if n, ok := numRecords(a.Stats); ok && n != int64(len(got)) {
			return nil, fmt.Errorf("delta: optimize: %s holds %d rows, its statistics say %d; nothing committed", key, len(got), n)
		}
		rows = append(rows, got...)
	}
	return rows, nil
}

// VacuumOptions tunes Vacuum.
type VacuumOptions struct {
	Retention time.Duration // default DefaultVacuumRetention
	DryRun    bool          // list what would be deleted
	Now       time.Time     // default time.Now()
}

// VacuumResult says what Vacuum deleted (or would).
type VacuumResult struct {
	Deleted []string // keys, sorted
	Bytes   int64
	Kept    int // unreferenced files still inside the retention
}

// Vacuum deletes the files under the table that the latest version does
// not reference and that are older than the retention: data files a
// rewrite removed (after their deletion time) and files no commit ever
// named — the data files and temporary files of writers that crashed
// before their commit. The log (_delta_log/) is never touched (but for the
// temporary file of a commit a crash cut short), nor any file a version
// within the retention may still read. The store must be
// a Sweeper.
func (t *Table[T]) Vacuum(ctx context.Context, o VacuumOptions) (VacuumResult, error) {
	if o.Retention <= 0 {
		o.Retention = DefaultVacuumRetention
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	sw, ok := t.store.(Sweeper)
	if !ok {
		return VacuumResult{}, fmt.Errorf("delta: vacuum: the store %T cannot list or delete files", t.store)
	}
	t.mu.Lock()
	err := t.snap.update(ctx, t.store)
	live := map[string]bool{}
	removedAt := map[string]int64{}
	for p := range t.snap.files {
		live[unescape(p)] = true
	}
	for p, r := range t.snap.removes {
		removedAt[unescape(p)] = r.DeletionTimestamp
	}
	t.mu.Unlock()
	if err != nil {
		return VacuumResult{}, err
	}
	objs, err := sw.Walk(ctx)
	if err != nil {
		return VacuumResult{}, err
	}
	cutoff := o.Now.Add(-o.Retention)
	var res VacuumResult
	for _, obj := range objs {
		if strings.HasPrefix(obj.Key, logDir) && !isTemp(obj.Key) || live[obj.Key] || !dataOrTemp(obj.Key) {
			continue // the log itself (a crashed commit's temporary file aside), live files, others' files
		}
		at := obj.ModTime
		if ms, ok := removedAt[obj.Key]; ok && ms > 0 && time.UnixMilli(ms).After(at) {
			at = time.UnixMilli(ms)
		}
		if at.After(cutoff) {
			res.Kept++
			continue
		}
		res.Deleted = append(res.Deleted, obj.Key)
		res.Bytes += obj.Size
	}
	slices.Sort(res.Deleted)
	if o.DryRun {
		return res, nil
	}
	for _, k := range res.Deleted {
		if err := sw.Delete(ctx, k); err != nil {
			return res, err
		}
	}
	return res, nil
}

// dataOrTemp tells the files a sparkdx writer leaves: Parquet data files
// (part-*.parquet, also from other engines) and the temporary files of
// DirStore's writes (.NAME.tmp-*).
func dataOrTemp(key string) bool {
	base := path.Base(key)
	return strings.HasSuffix(base, ".parquet") && !strings.HasPrefix(base, ".") && !strings.HasPrefix(base, "_") || isTemp(key)
}

// isTemp tells DirStore's temporary files (.NAME.tmp-RANDOM), which only a
// write in flight or a crashed one leaves.
func isTemp(key string) bool {
	base := path.Base(key)
	return strings.HasPrefix(base, ".") && strings.Contains(base, ".tmp-")
}

// CleanLogResult says what CleanLog deleted.
type CleanLogResult struct {
	Deleted    []string // log keys, sorted
	Checkpoint int64    // the checkpoint the table is read from afterwards; -1 when none
}

// CleanLog deletes the log entries older than retention that a later
// checkpoint makes redundant: the commits and older checkpoints before the
// newest checkpoint whose own commit is older than retention. Readers (and
// time travel to any version within the retention) still work; the
// checkpoint and everything after it stay. The store must be a Sweeper.
func (t *Table[T]) CleanLog(ctx context.Context, retention time.Duration, now time.Time) (CleanLogResult, error) {
	if retention <= 0 {
		retention = DefaultLogRetention
	}
	if now.IsZero() {
		now = time.Now()
	}
	res := CleanLogResult{Checkpoint: -1}
	sw, ok := t.store.(Sweeper)
	if !ok {
		return res, fmt.Errorf("delta: clean log: the store %T cannot list or delete files", t.store)
	}
	objs, err := sw.Walk(ctx)
	if err != nil {
		return res, err
	}
	modTime := map[string]time.Time{}
	var names []string
	for _, o := range objs {
		if name, ok := strings.CutPrefix(o.Key, logDir); ok && !strings.Contains(name, "/") {
			names = append(names, name)
			modTime[name] = o.ModTime
		}
	}
	l := parseListing(names)
	cutoff := now.Add(-retention)
	// The newest checkpoint whose commit is past the retention: versions
	// before it can go, time travel within the retention still reads.
	for _, cp := range l.checkpoints {
		if m, ok := modTime[commitName(cp)]; ok && m.Before(cutoff) {
			res.Checkpoint = max(res.Checkpoint, cp)
		}
	}
	if res.Checkpoint < 0 {
		return res, nil
	}
	for _, v := range l.commits {
		if v < res.Checkpoint && modTime[commitName(v)].Before(cutoff) {
			res.Deleted = append(res.Deleted, logDir+commitName(v))
		}
	}
	for _, v := range l.checkpoints {
		if v < res.Checkpoint {
			res.Deleted = append(res.Deleted, logDir+checkpointName(v))
		}
	}
	slices.Sort(res.Deleted)
	for _, k := range res.Deleted {
		if err := sw.Delete(ctx, k); err != nil {
			return res, err
		}
	}
	return res, nil
}

func unescape(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		return u
	}
	return p
}

// numRecords reads numRecords from an add action's statistics.
func numRecords(stats string) (int64, bool) {
	if stats == "" {
		return 0, false
	}
	var s struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if err := json.Unmarshal([]byte(stats), &s); err != nil || s.NumRecords == nil {
		return 0, false
	}
	return *s.NumRecords, true
}

// MaintainResult is one table's round of maintenance.
type MaintainResult struct {
	Name     string
	Optimize OptimizeResult
	Vacuum   VacuumResult
	CleanLog CleanLogResult
	Err      error // the step that failed; later steps were not run
}

// Maintain runs one round of maintenance on each table: Optimize, then
// Vacuum and CleanLog with Delta's default retentions. A table's failure
// does not stop the others; the next round retries it.
func Maintain(ctx context.Context, tables []NamedTable) []MaintainResult {
	out := make([]MaintainResult, 0, len(tables))
	for _, nt := range tables {
		r := MaintainResult{Name: nt.Name}
		r.Optimize, r.Err = nt.Table.Optimize(ctx, OptimizeOptions{})
		if r.Err == nil {
			r.Vacuum, r.Err = nt.Table.Vacuum(ctx, VacuumOptions{})
		}
		if r.Err == nil {
			r.CleanLog, r.Err = nt.Table.CleanLog(ctx, 0, time.Time{})
		}
		out = append(out, r)
	}
	return out
}

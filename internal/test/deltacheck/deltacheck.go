// Package deltacheck replays a Delta table's _delta_log the way PROTOCOL.md
// tells a reader to, independently of the writer in package delta, and
// reports every rule the log breaks: gaps, malformed actions, files that are
// missing or of the wrong size, statistics that disagree with the data file's
// row count, and checkpoints whose state differs from replaying the commits.
// Tests use it to check what sparkdx writes.
package deltacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// File is a live data file of the table.
type File struct {
	Path            string // decoded, relative to the table root
	Size            int64
	PartitionValues map[string]string
	NumRecords      int64 // from the stats
	Stats           Stats
}

// Stats is an add action's statistics, decoded.
type Stats struct {
	NumRecords int64            `json:"numRecords"`
	MinValues  map[string]any   `json:"minValues"`
	MaxValues  map[string]any   `json:"maxValues"`
	NullCount  map[string]int64 `json:"nullCount"`
}

// Table is the state of the latest version.
type Table struct {
	Version          int64
	Commits          int // commit files replayed
	Checkpoints      []int64
	LastCheckpoint   int64 // -1 without _last_checkpoint
	MinReader        int
	MinWriter        int
	SchemaString     string
	PartitionColumns []string
	Files            []File           // sorted by path
	Txns             map[string]int64 // appId -> version
	Rows             int64            // sum of NumRecords
}

// state is reconciliation state keyed the way PROTOCOL.md keys it.
type state struct {
	protocol map[string]any
	meta     map[string]any
	adds     map[string]map[string]any
	removes  map[string]bool
	txns     map[string]int64
}

func newState() *state {
	return &state{adds: map[string]map[string]any{}, removes: map[string]bool{}, txns: map[string]int64{}}
}

var commitRe = regexp.MustCompile(`^(\d{20})\.json$`)
var checkpointRe = regexp.MustCompile(`^(\d{20})\.checkpoint\.parquet$`)

// Check replays the table rooted at fsys and returns its latest state, or
// the first protocol violation found.
func Check(fsys fs.FS) (*Table, error) {
	entries, err := fs.ReadDir(fsys, "_delta_log")
	if err != nil {
		return nil, fmt.Errorf("deltacheck: %w", err)
	}
	var commits, cps []int64
	for _, e := range entries {
		if m := commitRe.FindStringSubmatch(e.Name()); m != nil {
			v, _ := strconv.ParseInt(m[1], 10, 64)
			commits = append(commits, v)
		}
		if m := checkpointRe.FindStringSubmatch(e.Name()); m != nil {
			v, _ := strconv.ParseInt(m[1], 10, 64)
			cps = append(cps, v)
		}
	}
	sort.Slice(commits, func(i, j int) bool { return commits[i] < commits[j] })
	sort.Slice(cps, func(i, j int) bool { return cps[i] < cps[j] })
	if len(commits) == 0 {
		return nil, errors.New("deltacheck: _delta_log has no commit files")
	}
	for i, v := range commits {
		if v != commits[0]+int64(i) {
			return nil, fmt.Errorf("deltacheck: version %d missing: the log jumps to %d", commits[0]+int64(i), v)
		}
	}
	t := &Table{Checkpoints: cps, LastCheckpoint: -1, Commits: len(commits)}
	// Replay every commit from 0; at each checkpoint version, compare the
	// checkpoint's state with the replayed one. A log whose early commits
	// were cleaned up starts from the checkpoint at its first commit (or
	// just before it).
	st := newState()
	next := 0
	if first := commits[0]; first > 0 {
		base := int64(-1)
		for _, c := range cps {
			if c == first || c == first-1 {
				base = c
			}
		}
		if base < 0 {
			return nil, fmt.Errorf("deltacheck: version 0 missing: the log starts at %d with no checkpoint to read from", first)
		}
		if st, err = readCheckpoint(fsys, base); err != nil {
			return nil, err
		}
		for next < len(cps) && cps[next] <= base {
			next++
		}
		if commits[0] == base {
			commits = commits[1:]
		}
		if len(commits) == 0 {
			t.Version = base
			if err := checkLastCheckpoint(fsys, t, cps); err != nil {
				return nil, err
			}
			return t, fillTable(fsys, t, st)
		}
	}
	for _, v := range commits {
		if err := replayCommit(fsys, st, v); err != nil {
			return nil, err
		}
		for next < len(cps) && cps[next] == v {
			cp, err := readCheckpoint(fsys, v)
			if err != nil {
				return nil, err
			}
			if err := sameState(st, cp); err != nil {
				return nil, fmt.Errorf("deltacheck: checkpoint %d differs from replayed commits: %w", v, err)
			}
			next++
		}
	}
	if next < len(cps) {
		return nil, fmt.Errorf("deltacheck: checkpoint %d has no commit", cps[next])
	}
	t.Version = commits[len(commits)-1]
	if err := checkLastCheckpoint(fsys, t, cps); err != nil {
		return nil, err
	}
	return t, fillTable(fsys, t, st)
}

func logName(v int64, suffix string) string {
	return fmt.Sprintf("_delta_log/%020d%s", v, suffix)
}

func replayCommit(fsys fs.FS, st *state, v int64) error {
	name := logName(v, ".json")
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("deltacheck: %w", err)
	}
	seen := map[string]int{}
	paths := map[string]bool{}
	txnIDs := map[string]bool{}
	for i, line := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
		var obj map[string]map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			return fmt.Errorf("deltacheck: %s line %d: %w", name, i+1, err)
		}
		if len(obj) != 1 {
			return fmt.Errorf("deltacheck: %s line %d: %d actions on one line, want 1", name, i+1, len(obj))
		}
		for kind, a := range obj {
			seen[kind]++
			if err := applyAction(st, kind, a); err != nil {
				return fmt.Errorf("deltacheck: %s line %d: %s: %w", name, i+1, kind, err)
			}
			switch kind {
			case "add":
				p := a["path"].(string)
				if paths[p] {
					return fmt.Errorf("deltacheck: %s line %d: path %s added twice in one commit", name, i+1, p)
				}
				paths[p] = true
			case "txn":
				id := a["appId"].(string)
				if txnIDs[id] {
					return fmt.Errorf("deltacheck: %s line %d: txn %s twice in one commit", name, i+1, id)
				}
				txnIDs[id] = true
			}
		}
	}
	if seen["metaData"] > 1 || seen["protocol"] > 1 || seen["commitInfo"] > 1 {
		return fmt.Errorf("deltacheck: %s: more than one metaData, protocol or commitInfo action", name)
	}
	if v == 0 && (seen["metaData"] != 1 || seen["protocol"] != 1) {
		return fmt.Errorf("deltacheck: %s: version 0 needs protocol and metaData", name)
	}
	return nil
}

// field kinds an action's fields must have
type kind int

const (
	kString kind = iota
	kNumber
	kBool
	kObject
	kStrings   // array of strings
	kStringMap // object of strings
)

func checkFields(a map[string]any, fields map[string]kind) error {
	for f, k := range fields {
		v, ok := a[f]
		if !ok {
			return fmt.Errorf("missing required field %q", f)
		}
		good := false
		switch k {
		case kString:
			_, good = v.(string)
		case kNumber:
			_, good = v.(float64)
		case kBool:
			_, good = v.(bool)
		case kObject:
			_, good = v.(map[string]any)
		case kStrings:
			arr, isArr := v.([]any)
			good = isArr
			for _, e := range arr {
				if _, s := e.(string); !s {
					good = false
				}
			}
		case kStringMap:
			m, isMap := v.(map[string]any)
			good = isMap
			for _, e := range m {
				if _, s := e.(string); !s && e != nil {
					good = false
				}
			}
		}
		if !good {
			return fmt.Errorf("field %q has the wrong type", f)
		}
	}
	return nil
}

func applyAction(st *state, action string, a map[string]any) error {
	switch action {
	case "protocol":
		if err := checkFields(a, map[string]kind{"minReaderVersion": kNumber, "minWriterVersion": kNumber}); err != nil {
			return err
		}
		st.protocol = a
	case "metaData":
		if err := checkFields(a, map[string]kind{"id": kString, "format": kObject, "schemaString": kString,
			"partitionColumns": kStrings, "configuration": kStringMap}); err != nil {
			return err
		}
		st.meta = a
	case "add":
		if err := checkFields(a, map[string]kind{"path": kString, "partitionValues": kStringMap, "size": kNumber,
			"modificationTime": kNumber, "dataChange": kBool}); err != nil {
			return err
		}
		st.adds[a["path"].(string)] = a
		delete(st.removes, a["path"].(string))
	case "remove":
		if err := checkFields(a, map[string]kind{"path": kString, "dataChange": kBool}); err != nil {
			return err
		}
		delete(st.adds, a["path"].(string))
		st.removes[a["path"].(string)] = true
	case "txn":
		if err := checkFields(a, map[string]kind{"appId": kString, "version": kNumber}); err != nil {
			return err
		}
		st.txns[a["appId"].(string)] = int64(a["version"].(float64))
	case "commitInfo":
	default:
		return fmt.Errorf("unknown action")
	}
	return nil
}

func checkLastCheckpoint(fsys fs.FS, t *Table, cps []int64) error {
	data, err := fs.ReadFile(fsys, "_delta_log/_last_checkpoint")
	if errors.Is(err, fs.ErrNotExist) {
		if len(cps) > 0 {
			return errors.New("deltacheck: checkpoints exist but _last_checkpoint does not")
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("deltacheck: %w", err)
	}
	var lc struct {
		Version *int64 `json:"version"`
		Size    *int64 `json:"size"`
	}
	if err := json.Unmarshal(data, &lc); err != nil || lc.Version == nil || lc.Size == nil {
		return fmt.Errorf("deltacheck: _last_checkpoint %q: want version and size", data)
	}
	if *lc.Version > t.Version {
		// Written after the listing by a writer still at work: the table
		// moved on; what was listed is still a consistent prefix.
		return nil
	}
	found := false
	for _, v := range cps {
		found = found || v == *lc.Version
	}
	if !found {
		return fmt.Errorf("deltacheck: _last_checkpoint names version %d with no checkpoint file", *lc.Version)
	}
	rows, err := checkpointRows(fsys, *lc.Version)
	if err != nil {
		return err
	}
	if int64(len(rows)) != *lc.Size {
		return fmt.Errorf("deltacheck: _last_checkpoint size %d, checkpoint %d has %d actions", *lc.Size, *lc.Version, len(rows))
	}
	t.LastCheckpoint = *lc.Version
	return nil
}

// fillTable checks the final state against the data files and fills t.
func fillTable(fsys fs.FS, t *Table, st *state) error {
	if st.protocol == nil || st.meta == nil {
		return errors.New("deltacheck: no protocol or metaData")
	}
	t.MinReader = int(st.protocol["minReaderVersion"].(float64))
	t.MinWriter = int(st.protocol["minWriterVersion"].(float64))
	t.SchemaString, _ = st.meta["schemaString"].(string)
	var schema struct {
		Type   string `json:"type"`
		Fields []struct {
			Name string `json:"name"`
			Type any    `json:"type"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(t.SchemaString), &schema); err != nil || schema.Type != "struct" {
		return fmt.Errorf("deltacheck: schemaString is not a struct type: %v", err)
	}
	columns := map[string]bool{}
	for _, f := range schema.Fields {
		columns[f.Name] = true
	}
	var parts []string
	switch ps := st.meta["partitionColumns"].(type) {
	case []string: // from a checkpoint
		parts = ps
	case []any: // from a JSON commit
		for _, p := range ps {
			s, ok := p.(string)
			if !ok {
				return fmt.Errorf("deltacheck: partition column %v is not a string", p)
			}
			parts = append(parts, s)
		}
	}
	for _, p := range parts {
		if !columns[p] {
			return fmt.Errorf("deltacheck: partition column %v not in schema", p)
		}
		t.PartitionColumns = append(t.PartitionColumns, p)
	}
	t.Txns = st.txns
	for p, a := range st.adds {
		f, err := checkFile(fsys, t, p, a, columns)
		if err != nil {
			return fmt.Errorf("deltacheck: version %d: add %s: %w", t.Version, p, err)
		}
		t.Files = append(t.Files, f)
		t.Rows += f.NumRecords
	}
	sort.Slice(t.Files, func(i, j int) bool { return t.Files[i].Path < t.Files[j].Path })
	return nil
}

func checkFile(fsys fs.FS, t *Table, p string, a map[string]any, columns map[string]bool) (File, error) {
	var f File
	decoded, err := url.PathUnescape(p)
	if err != nil || path.IsAbs(decoded) || strings.Contains(decoded, "..") || strings.HasPrefix(decoded, "_") {
		return f, fmt.Errorf("path is not a relative URI to a non-hidden file")
	}
	f.Path = decoded
	if decoded == "" || !fs.ValidPath(decoded) {
		return f, fmt.Errorf("path %q is not a valid relative path", decoded)
	}
	f.Size = int64(a["size"].(float64))
	pv, _ := a["partitionValues"].(map[string]any)
	f.PartitionValues = map[string]string{}
	for k, v := range pv {
		f.PartitionValues[k], _ = v.(string) // null: a null partition value
	}
	if len(pv) != len(t.PartitionColumns) {
		return f, fmt.Errorf("partitionValues %v, want one per partition column %v", pv, t.PartitionColumns)
	}
	for _, c := range t.PartitionColumns {
		if _, ok := pv[c]; !ok {
			return f, fmt.Errorf("partitionValues lack %s", c)
		}
	}
	data, err := fs.ReadFile(fsys, decoded)
	if err != nil {
		return f, err
	}
	if int64(len(data)) != f.Size {
		return f, fmt.Errorf("size %d, file has %d bytes", f.Size, len(data))
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return f, fmt.Errorf("not a Parquet file: %w", err)
	}
	for _, c := range pf.Schema().Fields() {
		if !columns[c.Name()] {
			return f, fmt.Errorf("data column %s is not in the table schema", c.Name())
		}
	}
	s, ok := a["stats"].(string)
	if !ok {
		return f, errors.New("no stats")
	}
	if err := json.Unmarshal([]byte(s), &f.Stats); err != nil {
		return f, fmt.Errorf("stats: %w", err)
	}
	f.NumRecords = f.Stats.NumRecords
	if f.NumRecords != pf.NumRows() {
		return f, fmt.Errorf("stats numRecords %d, file has %d rows", f.NumRecords, pf.NumRows())
	}
	for _, m := range []map[string]any{f.Stats.MinValues, f.Stats.MaxValues} {
		for c := range m {
			if !columns[c] {
				return f, fmt.Errorf("stats for unknown column %s", c)
			}
		}
	}
	for c, n := range f.Stats.NullCount {
		if !columns[c] || n < 0 || n > f.NumRecords {
			return f, fmt.Errorf("nullCount %s=%d out of range", c, n)
		}
	}
	return f, nil
}

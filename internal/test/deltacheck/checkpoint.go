package deltacheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// The checkpoint columns a reader needs, per "Checkpoint Schema" in
// PROTOCOL.md; other columns in the file are ignored.
type cpRow struct {
	Txn *struct {
		AppID   string `parquet:"appId"`
		Version int64  `parquet:"version"`
	} `parquet:"txn,optional"`
	Add *struct {
		Path            string            `parquet:"path"`
		PartitionValues map[string]string `parquet:"partitionValues"`
		Size            int64             `parquet:"size"`
		Stats           *string           `parquet:"stats,optional"`
	} `parquet:"add,optional"`
	Remove *struct {
		Path string `parquet:"path"`
	} `parquet:"remove,optional"`
	MetaData *struct {
		ID               string            `parquet:"id"`
		SchemaString     string            `parquet:"schemaString"`
		PartitionColumns []string          `parquet:"partitionColumns,list"`
		Configuration    map[string]string `parquet:"configuration"`
		Format           struct {
			Provider string `parquet:"provider"`
		} `parquet:"format"`
	} `parquet:"metaData,optional"`
	Protocol *struct {
		MinReaderVersion int32 `parquet:"minReaderVersion"`
		MinWriterVersion int32 `parquet:"minWriterVersion"`
	} `parquet:"protocol,optional"`
}

func checkpointRows(fsys fs.FS, v int64) ([]cpRow, error) {
	name := logName(v, ".checkpoint.parquet")
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("deltacheck: %w", err)
	}
	return readCheckpointRows(name, data)
}

// readCheckpointRows reads the rows; parquet-go panics on some malformed
// files, which are reported as errors.
func readCheckpointRows(name string, data []byte) (rows []cpRow, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("deltacheck: %s: malformed Parquet: %v", name, p)
		}
	}()
	if _, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data))); err != nil {
		return nil, fmt.Errorf("deltacheck: %s: %w", name, err)
	}
	r := parquet.NewGenericReader[cpRow](bytes.NewReader(data))
	defer r.Close()
	buf := make([]cpRow, 128)
	for {
		n, err := r.Read(buf)
		rows = append(rows, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("deltacheck: %s: %w", name, err)
		}
		clear(buf)
	}
}

// readCheckpoint rebuilds the state a checkpoint holds.
func readCheckpoint(fsys fs.FS, v int64) (*state, error) {
	rows, err := checkpointRows(fsys, v)
	if err != nil {
		return nil, err
	}
	st := newState()
	for i, r := range rows {
		n := 0
		for _, set := range []bool{r.Txn != nil, r.Add != nil, r.Remove != nil, r.MetaData != nil, r.Protocol != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return nil, fmt.Errorf("deltacheck: checkpoint %d row %d: %d actions, want 1", v, i, n)
		}
		switch {
		case r.Txn != nil:
			st.txns[r.Txn.AppID] = r.Txn.Version
		case r.Add != nil:
			a := map[string]any{"path": r.Add.Path, "size": float64(r.Add.Size), "partitionValues": r.Add.PartitionValues}
			if r.Add.Stats != nil {
				a["stats"] = *r.Add.Stats
			}
			st.adds[r.Add.Path] = a
		case r.Remove != nil:
			st.removes[r.Remove.Path] = true
		case r.MetaData != nil:
			m := r.MetaData
			st.meta = map[string]any{"id": m.ID, "schemaString": m.SchemaString,
				"partitionColumns": m.PartitionColumns, "configuration": m.Configuration, "provider": m.Format.Provider}
		case r.Protocol != nil:
			st.protocol = map[string]any{"minReaderVersion": float64(r.Protocol.MinReaderVersion),
				"minWriterVersion": float64(r.Protocol.MinWriterVersion)}
		}
	}
	return st, nil
}

// sameState compares replayed JSON state with checkpoint state.
func sameState(js, cp *state) error {
	if js.protocol == nil || cp.protocol == nil || js.meta == nil || cp.meta == nil {
		return errors.New("protocol or metaData missing")
	}
	for _, k := range []string{"minReaderVersion", "minWriterVersion"} {
		if js.protocol[k] != cp.protocol[k] {
			return fmt.Errorf("protocol %s: checkpoint %v, commits %v", k, cp.protocol[k], js.protocol[k])
		}
	}
	for _, k := range []string{"id", "schemaString"} {
		if js.meta[k] != cp.meta[k] {
			return fmt.Errorf("metaData %s: checkpoint %v, commits %v", k, cp.meta[k], js.meta[k])
		}
	}
	if f, _ := js.meta["format"].(map[string]any); f["provider"] != cp.meta["provider"] {
		return fmt.Errorf("metaData format.provider: checkpoint %v, commits %v", cp.meta["provider"], f["provider"])
	}
	var jsParts []string
	for _, p := range js.meta["partitionColumns"].([]any) {
		jsParts = append(jsParts, p.(string))
	}
	if cpParts := cp.meta["partitionColumns"].([]string); !slices.Equal(jsParts, cpParts) {
		return fmt.Errorf("partitionColumns: checkpoint %v, commits %v", cpParts, jsParts)
	}
	if !maps.Equal(js.txns, cp.txns) {
		return fmt.Errorf("txns: checkpoint %v, commits %v", cp.txns, js.txns)
	}
	if !maps.Equal(js.removes, cp.removes) {
		return fmt.Errorf("tombstones: checkpoint %d, commits %d", len(cp.removes), len(js.removes))
	}
	if len(js.adds) != len(cp.adds) {
		return fmt.Errorf("live files: checkpoint %d, commits %d", len(cp.adds), len(js.adds))
	}
	for p, a := range js.adds {
		c, ok := cp.adds[p]
		if !ok {
			return fmt.Errorf("file %s live in commits, absent from checkpoint", p)
		}
		if a["size"] != c["size"] || a["stats"] != c["stats"] {
			return fmt.Errorf("file %s: size/stats differ: checkpoint %v/%v, commits %v/%v", p, c["size"], c["stats"], a["size"], a["stats"])
		}
		jpv, _ := a["partitionValues"].(map[string]any)
		cpv, _ := c["partitionValues"].(map[string]string)
		if len(jpv) != len(cpv) {
			return fmt.Errorf("file %s: partitionValues differ", p)
		}
		for k, v := range jpv {
			if cpv[k] != v {
				return fmt.Errorf("file %s: partition %s: checkpoint %q, commits %q", p, k, cpv[k], v)
			}
		}
	}
	return nil
}

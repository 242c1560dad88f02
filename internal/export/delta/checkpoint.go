package delta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Checkpoint rows follow the "Checkpoint Schema" of PROTOCOL.md (classic,
// single-file, V1 spec): one struct column per action type, exactly one of
// them non-null in each row.
type cpRow struct {
	Txn      *cpTxn      `parquet:"txn,optional"`
	Add      *cpAdd      `parquet:"add,optional"`
	Remove   *cpRemove   `parquet:"remove,optional"`
	MetaData *cpMetaData `parquet:"metaData,optional"`
	Protocol *cpProtocol `parquet:"protocol,optional"`
}

type cpTxn struct {
	AppID       string `parquet:"appId"`
	Version     int64  `parquet:"version"`
	LastUpdated *int64 `parquet:"lastUpdated,optional"`
}

type cpAdd struct {
	Path             string            `parquet:"path"`
	PartitionValues  map[string]string `parquet:"partitionValues" `
	Size             int64             `parquet:"size"`
	ModificationTime int64             `parquet:"modificationTime"`
	DataChange       bool              `parquet:"dataChange"`
	Stats            *string           `parquet:"stats,optional"`
	Tags             map[string]string `parquet:"tags,optional" `
}

type cpRemove struct {
	Path              string `parquet:"path"`
	DeletionTimestamp *int64 `parquet:"deletionTimestamp,optional"`
	DataChange        bool   `parquet:"dataChange"`
}

type cpFormat struct {
	Provider string            `parquet:"provider"`
	Options  map[string]string `parquet:"options,optional" `
}

type cpMetaData struct {
	ID               string            `parquet:"id"`
	Name             *string           `parquet:"name,optional"`
	Description      *string           `parquet:"description,optional"`
	Format           cpFormat          `parquet:"format"`
	SchemaString     string            `parquet:"schemaString"`
	PartitionColumns []string          `parquet:"partitionColumns,list"`
	CreatedTime      *int64            `parquet:"createdTime,optional"`
	Configuration    map[string]string `parquet:"configuration" `
}

type cpProtocol struct {
	MinReaderVersion int32 `parquet:"minReaderVersion"`
	MinWriterVersion int32 `parquet:"minWriterVersion"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optInt(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// checkpointRows lists the snapshot's state as checkpoint rows: protocol,
// metadata, transaction identifiers, live files and tombstones, in a stable
// order.
func checkpointRows(s *snapshot) []cpRow {
	rows := []cpRow{{Protocol: &cpProtocol{int32(s.protocol.MinReaderVersion), int32(s.protocol.MinWriterVersion)}}}
	m := s.meta
	rows = append(rows, cpRow{MetaData: &cpMetaData{
		ID: m.ID, Name: optString(m.Name), Description: optString(m.Description),
		Format:       cpFormat{Provider: m.Format.Provider, Options: orEmpty(m.Format.Options)},
		SchemaString: m.SchemaString, PartitionColumns: append([]string{}, m.PartitionColumns...),
		CreatedTime: optInt(m.CreatedTime), Configuration: orEmpty(m.Configuration),
	}})
	for _, id := range sortedKeys(s.txns) {
		t := s.txns[id]
		rows = append(rows, cpRow{Txn: &cpTxn{AppID: t.AppID, Version: t.Version, LastUpdated: optInt(t.LastUpdated)}})
	}
	for _, p := range sortedKeys(s.files) {
		a := s.files[p]
		rows = append(rows, cpRow{Add: &cpAdd{Path: a.Path, PartitionValues: orEmpty(a.PartitionValues),
			Size: a.Size, ModificationTime: a.ModificationTime, DataChange: false,
			Stats: optString(a.Stats), Tags: a.Tags}})
	}
	for _, p := range sortedKeys(s.removes) {
		r := s.removes[p]
		rows = append(rows, cpRow{Remove: &cpRemove{Path: r.Path, DeletionTimestamp: optInt(r.DeletionTimestamp), DataChange: false}})
	}
	return rows
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// encodeCheckpoint writes rows as a zstd Parquet checkpoint file.
func encodeCheckpoint(rows []cpRow) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[cpRow](&buf, parquet.Compression(&zstd.Codec{}),
		parquet.CreatedBy("sparkdx", "", ""))
	if _, err := w.Write(rows); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeCheckpoint reads a checkpoint back into actions; it reads the
// columns sparkdx writes and the ones other writers add are ignored.
func decodeCheckpoint(name string, data []byte) (actions []Action, err error) {
	// parquet-go panics on some malformed files; a damaged checkpoint must
	// be an error (the writer then replays the JSON commits instead).
	defer func() {
		if p := recover(); p != nil {
			actions, err = nil, fmt.Errorf("delta: %s: malformed Parquet: %v", name, p)
		}
	}()
	if _, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data))); err != nil {
		return nil, fmt.Errorf("delta: %s: %w", name, err)
	}
	r := parquet.NewGenericReader[cpRow](bytes.NewReader(data))
	defer r.Close()
	buf := make([]cpRow, 256)
	for {
		n, err := r.Read(buf)
		for _, row := range buf[:n] {
			actions = append(actions, row.action())
		}
		if errors.Is(err, io.EOF) {
			return actions, nil
		}
		if err != nil {
			return nil, fmt.Errorf("delta: %s: %w", name, err)
		}
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (row cpRow) action() Action {
	switch {
	case row.Protocol != nil:
		return Action{Protocol: &Protocol{int(row.Protocol.MinReaderVersion), int(row.Protocol.MinWriterVersion)}}
	case row.MetaData != nil:
		m := row.MetaData
		return Action{MetaData: &MetaData{ID: m.ID, Name: deref(m.Name), Description: deref(m.Description),
			Format: Format{Provider: m.Format.Provider, Options: m.Format.Options}, SchemaString: m.SchemaString,
			PartitionColumns: m.PartitionColumns, CreatedTime: deref(m.CreatedTime), Configuration: m.Configuration}}
	case row.Txn != nil:
		return Action{Txn: &Txn{AppID: row.Txn.AppID, Version: row.Txn.Version, LastUpdated: deref(row.Txn.LastUpdated)}}
	case row.Add != nil:
		a := row.Add
		return Action{Add: &Add{Path: a.Path, PartitionValues: a.PartitionValues, Size: a.Size,
			ModificationTime: a.ModificationTime, DataChange: a.DataChange, Stats: deref(a.Stats), Tags: a.Tags}}
	case row.Remove != nil:
		return Action{Remove: &Remove{Path: row.Remove.Path, DeletionTimestamp: deref(row.Remove.DeletionTimestamp)}}
	}
	return Action{}
}

// lastCheckpoint is the _delta_log/_last_checkpoint file.
type lastCheckpoint struct {
	Version       int64 `json:"version"`
	Size          int64 `json:"size"`
	SizeInBytes   int64 `json:"sizeInBytes,omitempty"`
	NumOfAddFiles int64 `json:"numOfAddFiles,omitempty"`
}

func encodeLastCheckpoint(lc lastCheckpoint) []byte {
	b, _ := json.Marshal(lc)
	return b
}

package delta

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// Action is one line of a commit file: exactly one field is set.
type Action struct {
	Protocol   *Protocol      `json:"protocol,omitempty"`
	MetaData   *MetaData      `json:"metaData,omitempty"`
	Add        *Add           `json:"add,omitempty"`
	Remove     *Remove        `json:"remove,omitempty"`
	Txn        *Txn           `json:"txn,omitempty"`
	CommitInfo map[string]any `json:"commitInfo,omitempty"`
}

// Protocol is the protocol action; sparkdx writes reader 1 / writer 2.
type Protocol struct {
	MinReaderVersion int `json:"minReaderVersion"`
	MinWriterVersion int `json:"minWriterVersion"`
}

// Format names the data file format.
type Format struct {
	Provider string            `json:"provider"`
	Options  map[string]string `json:"options"`
}

// MetaData is the metaData action.
type MetaData struct {
	ID               string            `json:"id"`
	Name             string            `json:"name,omitempty"`
	Description      string            `json:"description,omitempty"`
	Format           Format            `json:"format"`
	SchemaString     string            `json:"schemaString"`
	PartitionColumns []string          `json:"partitionColumns"`
	CreatedTime      int64             `json:"createdTime,omitempty"`
	Configuration    map[string]string `json:"configuration"`
}

// Add is the add action.
type Add struct {
	Path             string            `json:"path"`
	PartitionValues  map[string]string `json:"partitionValues"`
	Size             int64             `json:"size"`
	ModificationTime int64             `json:"modificationTime"`
	DataChange       bool              `json:"dataChange"`
	Stats            string            `json:"stats,omitempty"`
	Tags             map[string]string `json:"tags,omitempty"`
}

// Remove is the remove action: sparkdx writes it only when Optimize
// rewrites files (dataChange false); other engines' deletes are read.
type Remove struct {
	Path              string `json:"path"`
	DeletionTimestamp int64  `json:"deletionTimestamp,omitempty"`
	DataChange        bool   `json:"dataChange"`
}

// Txn is a transaction identifier: the latest version per AppID survives.
type Txn struct {
	AppID       string `json:"appId"`
	Version     int64  `json:"version"`
	LastUpdated int64  `json:"lastUpdated,omitempty"`
}

// Stats is the per-file statistics struct, stored as a JSON string in Add.
type Stats struct {
	NumRecords int64            `json:"numRecords"`
	MinValues  map[string]any   `json:"minValues,omitempty"`
	MaxValues  map[string]any   `json:"maxValues,omitempty"`
	NullCount  map[string]int64 `json:"nullCount,omitempty"`
}

// encodeCommit renders actions as newline-delimited JSON.
func encodeCommit(actions []Action) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, a := range actions {
		if err := enc.Encode(a); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// decodeCommit parses a commit file; name is used in errors.
func decodeCommit(name string, data []byte) ([]Action, error) {
	var actions []Action
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var a Action
		if err := json.Unmarshal(b, &a); err != nil {
			return nil, fmt.Errorf("delta: %s line %d: %w", name, line, err)
		}
		actions = append(actions, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("delta: %s: %w", name, err)
	}
	return actions, nil
}

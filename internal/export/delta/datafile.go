package delta

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// writeFiles writes one zstd Parquet file per distinct partition and
// returns their add actions (not yet committed).
func (t *Table[T]) writeFiles(ctx context.Context, rows []T) ([]*Add, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	groups, order := t.partition(rows)
	var adds []*Add
	for _, key := range order {
		g := groups[key]
		data, err := encodeRows(g.rows)
		if err != nil {
			return nil, fmt.Errorf("delta: encode data file: %w", err)
		}
		name := fmt.Sprintf("part-00000-%s.c000.zstd.parquet", uuid.NewString())
		objKey := g.dir + name
		if err := t.store.Put(ctx, objKey, data, true); err != nil {
			return nil, err
		}
		stats, err := json.Marshal(computeStats(t.statCols, reflect.ValueOf(g.rows)))
		if err != nil {
			return nil, err
		}
		adds = append(adds, &Add{
			Path: (&url.URL{Path: objKey}).EscapedPath(), PartitionValues: g.values,
			Size: int64(len(data)), ModificationTime: time.Now().UnixMilli(), DataChange: true,
			Stats: string(stats),
		})
	}
	return adds, nil
}

type partGroup[T any] struct {
	values map[string]string
	dir    string // "date=2026-11-21/" (Hive-escaped) or ""
	rows   []T
}

func (t *Table[T]) partition(rows []T) (map[string]*partGroup[T], []string) {
	groups := map[string]*partGroup[T]{}
	var order []string
	for _, r := range rows {
		rv := reflect.ValueOf(r)
		var dir strings.Builder
		values := map[string]string{}
		for i, p := range t.opts.PartitionBy {
			v := rv.Field(t.partIdx[i]).String()
			values[p] = v
			val := hiveEscape(v)
			if v == "" {
				val = "__HIVE_DEFAULT_PARTITION__" // PROTOCOL.md: an empty value is null
			}
			dir.WriteString(hiveEscape(p) + "=" + val + "/")
		}
		key := dir.String()
		g := groups[key]
		if g == nil {
			g = &partGroup[T]{values: values, dir: key}
			groups[key] = g
			order = append(order, key)
		}
		g.rows = append(g.rows, r)
	}
	return groups, order
}

// hiveEscape percent-encodes the characters Hive escapes in partition
// directory names.
func hiveEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func encodeRows[T any](rows []T) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.Compression(&zstd.Codec{}),
		parquet.CreatedBy("sparkdx", "", ""))
	if _, err := w.Write(rows); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

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
		data, err := encodeRows(g.rows, t.codec)
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
	var key []byte
	for i := range rows {
		rv := reflect.ValueOf(&rows[i]).Elem()
		key = key[:0]
		for j := range t.opts.PartitionBy {
			key = append(append(key, rv.Field(t.partIdx[j]).String()...), 0)
		}
		g := groups[string(key)] // no allocation for the lookup
		if g == nil {
			g = &partGroup[T]{values: map[string]string{}}
			var dir strings.Builder
			for j, p := range t.opts.PartitionBy {
				v := rv.Field(t.partIdx[j]).String()
				g.values[p] = v
				val := hiveEscape(v)
				if v == "" {
					val = "__HIVE_DEFAULT_PARTITION__" // PROTOCOL.md: an empty value is null
				}
				dir.WriteString(hiveEscape(p) + "=" + val + "/")
			}
			g.dir = dir.String()
			groups[string(key)] = g
			order = append(order, string(key))
		}
		g.rows = append(g.rows, rows[i])
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

func encodeRows[T any](rows []T, codec *zstd.Codec) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.Compression(codec),
		parquet.CreatedBy("sparkdx", "", ""))
	if _, err := w.Write(rows); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// evidenceValue renders one evidence value compactly for a person:
// durations (keys ending in Ms) and sizes (Bytes) in units, epoch times
// (Time) as dates, short lists and maps inline, long or nested ones as a
// count (the JSON report has them in full).
func evidenceValue(key string, v any) string {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return "-"
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			return "none"
		}
		if rv.Len() > 8 || !scalar(rv.Index(0)) {
			return fmt.Sprintf("%d entries", rv.Len())
		}
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = scalarValue(key, rv.Index(i))
		}
		return strings.Join(parts, ",")
	case reflect.Map:
		if rv.Len() == 0 {
			return "none"
		}
		keys := rv.MapKeys()
		if rv.Len() > 8 || !scalar(rv.MapIndex(keys[0])) {
			return fmt.Sprintf("%d entries", rv.Len())
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprint(k.Interface()) + ":" + scalarValue(fmt.Sprint(k.Interface()), rv.MapIndex(k))
		}
		sort.Strings(parts)
		return strings.Join(parts, ",")
	}
	if !scalar(rv) {
		return "…"
	}
	return scalarValue(key, rv)
}

// evidenceFull renders an evidence value in full: scalars as
// evidenceValue does, anything nested as JSON.
func evidenceFull(key string, v any) string {
	rv := reflect.ValueOf(v)
	if rv.IsValid() && scalar(rv) {
		return scalarValue(key, rv)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func scalar(rv reflect.Value) bool {
	for rv.Kind() == reflect.Interface && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func scalarValue(key string, rv reflect.Value) string {
	for rv.Kind() == reflect.Interface && !rv.IsNil() {
		rv = rv.Elem()
	}
	var n float64
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n = float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		n = rv.Float()
	case reflect.String:
		return rv.String()
	default:
		return fmt.Sprint(rv.Interface())
	}
	switch {
	case strings.HasSuffix(key, "Ms"):
		return fmtDuration(int64(n))
	case strings.HasSuffix(key, "Bytes"):
		return fmtBytes(int64(n))
	case strings.HasSuffix(key, "Time") && n > 1e11:
		return fmtTime(int64(n))
	case n == float64(int64(n)):
		return fmt.Sprintf("%d", int64(n))
	}
	return fmt.Sprintf("%.3g", n)
}

// evidenceTable is a list of records in the evidence (one per executor,
// say) laid out as a table.
type evidenceTable struct {
	Key  string
	Cols []string
	Rows [][]string
}

// evidenceRecords returns v as a table when it is a non-empty list whose
// elements are all maps of scalars; ok is false otherwise.
func evidenceRecords(key string, v any) (t evidenceTable, ok bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) || rv.Len() == 0 {
		return t, false
	}
	cols := map[string]bool{}
	var recs []map[string]reflect.Value
	for i := 0; i < rv.Len(); i++ {
		e := rv.Index(i)
		for e.Kind() == reflect.Interface && !e.IsNil() {
			e = e.Elem()
		}
		if e.Kind() != reflect.Map || e.Type().Key().Kind() != reflect.String {
			return t, false
		}
		rec := map[string]reflect.Value{}
		for _, k := range e.MapKeys() {
			val := e.MapIndex(k)
			if !scalar(val) {
				return t, false
			}
			rec[k.String()] = val
			cols[k.String()] = true
		}
		recs = append(recs, rec)
	}
	t.Key = key
	for c := range cols {
		t.Cols = append(t.Cols, c)
	}
	sort.Strings(t.Cols)
	for _, rec := range recs {
		row := make([]string, len(t.Cols))
		for i, c := range t.Cols {
			if val, ok := rec[c]; ok {
				row[i] = scalarValue(c, val)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, true
}

package delta

import (
	"math"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// statPrefix is how many characters of a string column the statistics
// keep, as Delta's own writer does (delta.dataSkippingStringPrefixLength).
const statPrefix = 32

type statKind int

const (
	statString statKind = iota
	statInt
	statFloat
	statBool
	statTime
)

// statColumn is a top-level column of the row struct that gets statistics.
type statColumn struct {
	name  string
	index int
	kind  statKind
	ptr   bool
}

// parquetName returns the column name parquet-go gives a struct field, or
// "" when the field is not written.
func parquetName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, ok := f.Tag.Lookup("parquet")
	if !ok {
		return f.Name
	}
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		return f.Name
	}
	return name
}

var timeType = reflect.TypeFor[time.Time]()

// statColumnsOf lists the columns of row type t that get min/max/nullCount:
// scalar top-level columns, except partition columns (whose value is in
// the add action already).
func statColumnsOf(t reflect.Type, partition []string) []statColumn {
	skip := map[string]bool{}
	for _, p := range partition {
		skip[p] = true
	}
	var cols []statColumn
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := parquetName(f)
		if name == "" || skip[name] {
			continue
		}
		ft, ptr := f.Type, false
		if ft.Kind() == reflect.Pointer {
			ft, ptr = ft.Elem(), true
		}
		c := statColumn{name: name, index: i, ptr: ptr}
		switch {
		case ft == timeType:
			c.kind = statTime
		case ft.Kind() == reflect.String:
			c.kind = statString
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
			c.kind = statInt
		case ft.Kind() == reflect.Float32 || ft.Kind() == reflect.Float64:
			c.kind = statFloat
		case ft.Kind() == reflect.Bool:
			c.kind = statBool
		default:
			continue
		}
		cols = append(cols, c)
	}
	return cols
}

// colStat accumulates one column over a file's rows.
type colStat struct {
	nulls      int64
	seen       bool
	minS, maxS string
	minI, maxI int64
	minF, maxF float64
	seenF      bool
}

func (s *colStat) add(kind statKind, v reflect.Value) {
	switch kind {
	case statString:
		x := v.String()
		if !s.seen || x < s.minS {
			s.minS = x
		}
		if !s.seen || x > s.maxS {
			s.maxS = x
		}
	case statInt, statTime:
		var x int64
		if kind == statTime {
			x = v.Interface().(time.Time).UnixMicro()
		} else {
			x = v.Int()
		}
		if !s.seen || x < s.minI {
			s.minI = x
		}
		if !s.seen || x > s.maxI {
			s.maxI = x
		}
	case statFloat:
		x := v.Float()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			break // JSON cannot hold them; bounds from finite values only would be wrong
		}
		if !s.seenF || x < s.minF {
			s.minF = x
		}
		if !s.seenF || x > s.maxF {
			s.maxF = x
		}
		s.seenF = true
	}
	s.seen = true
}

// computeStats returns the statistics of rows (a slice of row structs).
func computeStats(cols []statColumn, rows reflect.Value) Stats {
	st := Stats{NumRecords: int64(rows.Len()), MinValues: map[string]any{}, MaxValues: map[string]any{}, NullCount: map[string]int64{}}
	acc := make([]colStat, len(cols))
	nonFinite := make([]bool, len(cols))
	for r := 0; r < rows.Len(); r++ {
		row := rows.Index(r)
		for i, c := range cols {
			v := row.Field(c.index)
			if c.ptr {
				if v.IsNil() {
					acc[i].nulls++
					continue
				}
				v = v.Elem()
			}
			if c.kind == statFloat && (math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0)) {
				nonFinite[i] = true
			}
			acc[i].add(c.kind, v)
		}
	}
	for i, c := range cols {
		a := acc[i]
		st.NullCount[c.name] = a.nulls
		if !a.seen {
			continue
		}
		switch c.kind {
		case statString:
			st.MinValues[c.name] = truncate(a.minS)
			if utf8.RuneCountInString(a.maxS) <= statPrefix {
				st.MaxValues[c.name] = a.maxS
			}
		case statInt:
			st.MinValues[c.name] = a.minI
			st.MaxValues[c.name] = a.maxI
		case statTime:
			// PROTOCOL.md: timestamp statistics are truncated down to milliseconds.
			st.MinValues[c.name] = formatStatTime(a.minI)
			st.MaxValues[c.name] = formatStatTime(a.maxI)
		case statFloat:
			if a.seenF && !nonFinite[i] {
				st.MinValues[c.name] = a.minF
				st.MaxValues[c.name] = a.maxF
			}
		}
	}
	return st
}

func truncate(s string) string {
	if utf8.RuneCountInString(s) <= statPrefix {
		return s
	}
	n := 0
	for i := range s {
		if n == statPrefix {
			return s[:i]
		}
		n++
	}
	return s
}

// formatStatTime renders epoch microseconds as Delta's statistics do:
// ISO 8601 in UTC, milliseconds, truncated down.
func formatStatTime(micros int64) string {
	ms := micros / 1000
	if micros < 0 && micros%1000 != 0 {
		ms--
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

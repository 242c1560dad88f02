package historyapi

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// Obj is a JSON object that keeps its keys in insertion order. Values are
// string, bool, int, int64 (JSON integers), float64 (Java doubles: always
// written with a fraction or exponent), *Obj and []any.
type Obj struct {
	keys []string
	vals []any
}

func obj() *Obj { return &Obj{} }

// Set appends a field.
func (o *Obj) Set(k string, v any) *Obj {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	return o
}

// Get returns a field's value, or nil.
func (o *Obj) Get(k string) any {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i]
		}
	}
	return nil
}

// Marshal writes v pretty-printed, in the layout Spark's History Server
// (Jackson) uses: "key" : value, arrays of scalars on one line.
func Marshal(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func indent(b *bytes.Buffer, n int) {
	for range n {
		b.WriteString("  ")
	}
}

func writeValue(b *bytes.Buffer, v any, depth int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(JavaDouble(x))
	case *Obj:
		if len(x.keys) == 0 {
			b.WriteString("{ }")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(",\n")
			}
			indent(b, depth+1)
			writeString(b, k)
			b.WriteString(" : ")
			writeValue(b, x.vals[i], depth+1)
		}
		b.WriteByte('\n')
		indent(b, depth)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[ ]")
			return
		}
		b.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e, depth)
		}
		b.WriteString(" ]")
	default:
		b.WriteString("null")
	}
}

const hexDigits = "0123456789abcdef"

func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// JavaDouble formats f as Java's Double.toString does: "4.0", "0.01",
// "1.12849E8".
func JavaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1.12849e+08
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// date formats epoch milliseconds as the History Server does.
func date(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000") + "GMT"
}

func intsAny(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func stringsAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func floatsAny(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func pairsObj(ps [][2]string) *Obj {
	o := obj()
	for _, p := range ps {
		o.Set(p[0], p[1])
	}
	return o
}

func pairsList(ps [][2]string) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = []any{p[0], p[1]}
	}
	return out
}

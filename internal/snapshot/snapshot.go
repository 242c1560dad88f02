// Package snapshot turns a graph of Go values into bytes and back, so
// that sparkdx serve can store the live replay state of a running event
// log and resume it after a restart instead of reading the log again.
//
// The graph is what the value reaches: structs (unexported fields too),
// pointers, maps, slices, arrays, strings, booleans and numbers. A pointer
// reached twice is written once and decoded as one object, so shared and
// cyclic structures (a stage held both by the attempt and by the replay's
// live-stage index) keep their identity. What is not kept: the capacity of
// slices and the sharing of their backing arrays, and the identity of a
// pointer into the inside of another value (decoded as a copy).
//
// Channels, functions, interfaces and unsafe pointers cannot be encoded:
// Marshal refuses the type. Every encoding starts with a fingerprint of the
// root type's whole structure (type, field names and kinds, recursively):
// Unmarshal into a type whose structure changed since the bytes were
// written fails with ErrSchema, so a newer sparkdx never misreads an older
// snapshot; callers start over instead.
package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"strconv"
	"unsafe"
)

// magic starts every encoding; the digit is the format version.
const magic = "sdxsnap1"

// maxDepth bounds the nesting Unmarshal follows, so that crafted bytes
// cannot exhaust the stack.
const maxDepth = 10000

// maxZeroSize bounds the length of a slice of zero-size elements, which
// take no bytes each and so are not bounded by the input's length.
const maxZeroSize = 1 << 20

// ErrSchema says the bytes were written for a type of another structure.
var ErrSchema = errors.New("snapshot: written for another version of the type")

// Marshal encodes the graph v points to; v must be a non-nil pointer.
func Marshal(v any) ([]byte, error) { return MarshalAppend(make([]byte, 0, 4096), v) }

// MarshalAppend is Marshal appending to buf: a buffer sized from the last
// encoding of a growing graph saves most of Marshal's copying.
func MarshalAppend(buf []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("snapshot: Marshal needs a non-nil pointer, got %T", v)
	}
	fp, err := Fingerprint(rv.Type().Elem())
	if err != nil {
		return nil, err
	}
	e := &encoder{buf: buf, ptrs: map[ptrKey]uint64{}}
	e.buf = append(e.buf, magic...)
	e.buf = binary.LittleEndian.AppendUint64(e.buf, fp)
	e.value(rv) // the root is pointer 1: the graph may point back to it
	return e.buf, nil
}

// Unmarshal decodes data, written by Marshal for the same type, into the
// value v points to. Errors name the byte offset where decoding stopped.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("snapshot: Unmarshal needs a non-nil pointer, got %T", v)
	}
	fp, err := Fingerprint(rv.Type().Elem())
	if err != nil {
		return err
	}
	if len(data) < len(magic)+8 || string(data[:len(magic)]) != magic {
		return fmt.Errorf("snapshot: offset 0: not a snapshot (want %q header)", magic)
	}
	if got := binary.LittleEndian.Uint64(data[len(magic):]); got != fp {
		return fmt.Errorf("%w (fingerprint %016x, want %016x)", ErrSchema, got, fp)
	}
	d := &decoder{data: data, off: len(magic) + 8, zero: map[reflect.Type]bool{}}
	if id, err := d.uvarint("root"); err != nil {
		return err
	} else if id != 1 {
		return d.errorf("root pointer id %d, want 1", id)
	}
	d.ptrs = append(d.ptrs, rv)
	if err := d.value(rv.Elem(), 0); err != nil {
		return err
	}
	if d.off != len(data) {
		return fmt.Errorf("snapshot: offset %d: %d bytes after the value", d.off, len(data)-d.off)
	}
	return nil
}

// Fingerprint hashes the structure of t: what Marshal writes depends on
// exactly this. It fails for a type that holds what cannot be encoded.
func Fingerprint(t reflect.Type) (uint64, error) {
	h := fnv.New64a()
	seen := map[reflect.Type]int{}
	var walk func(t reflect.Type, path string) error
	walk = func(t reflect.Type, path string) error {
		if i, ok := seen[t]; ok {
			fmt.Fprintf(h, "@%d;", i)
			return nil
		}
		seen[t] = len(seen)
		fmt.Fprintf(h, "%s %s.%s;", t.Kind(), t.PkgPath(), t.Name())
		switch t.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64, reflect.String:
			return nil
		case reflect.Pointer, reflect.Slice:
			return walk(t.Elem(), path+"[]")
		case reflect.Array:
			fmt.Fprintf(h, "len %d;", t.Len())
			return walk(t.Elem(), path+"[]")
		case reflect.Map:
			if err := walk(t.Key(), path+"[key]"); err != nil {
				return err
			}
			return walk(t.Elem(), path+"[]")
		case reflect.Struct:
			fmt.Fprintf(h, "fields %d;", t.NumField())
			for i := range t.NumField() {
				f := t.Field(i)
				fmt.Fprintf(h, "%s;", f.Name)
				if err := walk(f.Type, path+"."+f.Name); err != nil {
					return err
				}
			}
			return nil
		}
		return fmt.Errorf("snapshot: %s%s: cannot encode a %s", t, path, t.Kind())
	}
	if err := walk(t, ""); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}

// ptrKey identifies a pointer: a struct and its first field share an
// address, so the type is part of the key.
type ptrKey struct {
	addr uintptr
	t    reflect.Type
}

type encoder struct {
	buf  []byte
	ptrs map[ptrKey]uint64 // pointer → its id, from 1 in the order first met
}

func (e *encoder) uvarint(x uint64) { e.buf = binary.AppendUvarint(e.buf, x) }

func (e *encoder) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		b := byte(0)
		if v.Bool() {
			b = 1
		}
		e.buf = append(e.buf, b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = binary.AppendVarint(e.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.uvarint(v.Uint())
	case reflect.Float32:
		e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(float32(v.Float())))
	case reflect.Float64:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v.Float()))
	case reflect.String:
		s := v.String()
		e.uvarint(uint64(len(s)))
		e.buf = append(e.buf, s...)
	case reflect.Pointer:
		if v.IsNil() {
			e.uvarint(0)
			return
		}
		k := ptrKey{v.Pointer(), v.Type()}
		if id, ok := e.ptrs[k]; ok {
			e.uvarint(id)
			return
		}
		id := uint64(len(e.ptrs)) + 1
		e.ptrs[k] = id
		e.uvarint(id)
		e.value(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			e.uvarint(0)
			return
		}
		e.uvarint(uint64(v.Len()) + 1)
		if v.Type().Elem().Kind() == reflect.Uint8 {
			e.buf = append(e.buf, v.Bytes()...)
			return
		}
		for i := range v.Len() {
			e.value(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			e.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			e.uvarint(0)
			return
		}
		e.uvarint(uint64(v.Len()) + 1)
		it := v.MapRange()
		for it.Next() {
			e.value(it.Key())
			e.value(it.Value())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			e.value(v.Field(i))
		}
	default:
		// Fingerprint has refused every other kind before encoding starts.
		panic("snapshot: unreachable kind " + v.Kind().String())
	}
}

type decoder struct {
	data []byte
	off  int
	ptrs []reflect.Value       // decoded pointers by id-1
	zero map[reflect.Type]bool // types that encode to no bytes
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("snapshot: offset %d: %s", d.off, fmt.Sprintf(format, args...))
}

func (d *decoder) uvarint(what string) (uint64, error) {
	x, n := binary.Uvarint(d.data[d.off:])
	if n <= 0 {
		return 0, d.errorf("bad or cut varint for %s", what)
	}
	d.off += n
	return x, nil
}

// length reads a slice or map length stored as n+1 (0 is nil) and checks
// it against the bytes left, so crafted input cannot demand huge memory.
func (d *decoder) length(t reflect.Type, elem reflect.Type) (n int, isNil bool, err error) {
	x, err := d.uvarint(t.String() + " length")
	if err != nil {
		return 0, false, err
	}
	if x == 0 {
		return 0, true, nil
	}
	x--
	limit := uint64(len(d.data) - d.off)
	if d.encodesEmpty(elem) {
		limit = maxZeroSize
	}
	if x > limit {
		return 0, false, d.errorf("%s length %d exceeds the %d bytes left", t, x, len(d.data)-d.off)
	}
	return int(x), false, nil
}

// encodesEmpty says whether every value of t encodes to no bytes.
func (d *decoder) encodesEmpty(t reflect.Type) bool {
	if z, ok := d.zero[t]; ok {
		return z
	}
	z := false
	switch t.Kind() {
	case reflect.Struct:
		z = true
		for i := range t.NumField() {
			z = z && d.encodesEmpty(t.Field(i).Type)
		}
	case reflect.Array:
		z = t.Len() == 0 || d.encodesEmpty(t.Elem())
	}
	d.zero[t] = z
	return z
}

func (d *decoder) value(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return d.errorf("nesting deeper than %d", maxDepth)
	}
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool:
		if d.off >= len(d.data) || d.data[d.off] > 1 {
			return d.errorf("want a bool byte (0 or 1)")
		}
		v.SetBool(d.data[d.off] == 1)
		d.off++
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(d.data[d.off:])
		if n <= 0 {
			return d.errorf("bad or cut varint for %s", t)
		}
		if v.OverflowInt(x) {
			return d.errorf("%d overflows %s", x, t)
		}
		d.off += n
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x, err := d.uvarint(t.String())
		if err != nil {
			return err
		}
		if v.OverflowUint(x) {
			return d.errorf("%d overflows %s", x, t)
		}
		v.SetUint(x)
	case reflect.Float32:
		if len(d.data)-d.off < 4 {
			return d.errorf("cut float32")
		}
		v.SetFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(d.data[d.off:]))))
		d.off += 4
	case reflect.Float64:
		if len(d.data)-d.off < 8 {
			return d.errorf("cut float64")
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(d.data[d.off:])))
		d.off += 8
	case reflect.String:
		n, err := d.uvarint("string length")
		if err != nil {
			return err
		}
		if n > uint64(len(d.data)-d.off) {
			return d.errorf("string length %d exceeds the %d bytes left", n, len(d.data)-d.off)
		}
		v.SetString(string(d.data[d.off : d.off+int(n)]))
		d.off += int(n)
	case reflect.Pointer:
		return d.pointer(v, depth)
	case reflect.Slice:
		n, isNil, err := d.length(t, t.Elem())
		if err != nil || isNil {
			return err
		}
		if t.Elem().Kind() == reflect.Uint8 {
			s := reflect.MakeSlice(t, n, n)
			copy(s.Bytes(), d.data[d.off:d.off+n])
			d.off += n
			v.Set(s)
			return nil
		}
		s := reflect.MakeSlice(t, n, n)
		if d.encodesEmpty(t.Elem()) {
			v.Set(s) // zero values are what decoding each would give
			return nil
		}
		for i := range n {
			if err := d.value(s.Index(i), depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			if err := d.value(v.Index(i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		n, isNil, err := d.length(t, t.Key())
		if err != nil || isNil {
			return err
		}
		if n > 1 && d.encodesEmpty(t.Key()) {
			return d.errorf("%s of %d entries: its key type has one value", t, n)
		}
		m := reflect.MakeMapWithSize(t, n)
		for range n {
			k := reflect.New(t.Key()).Elem()
			if err := d.value(k, depth+1); err != nil {
				return err
			}
			x := reflect.New(t.Elem()).Elem()
			if err := d.value(x, depth+1); err != nil {
				return err
			}
			m.SetMapIndex(k, x)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				// An unexported field: v is addressable (it was allocated
				// here), so its field can be written through its address.
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			if err := d.value(f, depth+1); err != nil {
				return err
			}
		}
	default:
		return d.errorf("cannot decode a %s", t.Kind())
	}
	return nil
}

func (d *decoder) pointer(v reflect.Value, depth int) error {
	t := v.Type()
	id, err := d.uvarint(t.String())
	if err != nil {
		return err
	}
	switch {
	case id == 0:
		v.SetZero()
		return nil
	case id <= uint64(len(d.ptrs)):
		p := d.ptrs[id-1]
		if p.Type() != t {
			return d.errorf("pointer %d is a %s, want %s", id, p.Type(), t)
		}
		v.Set(p)
		return nil
	case id == uint64(len(d.ptrs))+1:
		p := reflect.New(t.Elem())
		d.ptrs = append(d.ptrs, p) // before the contents: they may point back
		v.Set(p)
		return d.value(p.Elem(), depth+1)
	}
	return d.errorf("pointer id %d out of order (next new id is %s)", id, strconv.Itoa(len(d.ptrs)+1))
}

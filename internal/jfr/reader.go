package jfr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf16"
)

// errShort is the error for input that ends inside a value.
var errShort = errors.New("unexpected end of data")

// reader decodes a chunk's bytes. The first error sticks: every later read
// returns zero values, so decoders check err once at the end of a unit.
type reader struct {
	b          []byte
	pos        int
	compressed bool // integers are LEB128 varints (the chunk header's flag)
	err        error
	base       int // the chunk's offset in the file, for error messages
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("offset %d: %s", r.base+r.pos, fmt.Sprintf(format, a...))
	}
}

func (r *reader) left() int { return len(r.b) - r.pos }

func (r *reader) u8() byte {
	if r.err != nil || r.pos >= len(r.b) {
		r.fail("%v", errShort)
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *reader) fixed(n int) []byte {
	if r.err != nil || n < 0 || r.left() < n {
		r.fail("%v reading %d bytes", errShort, n)
		return nil
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

// varint is the JDK's compressed long: 7 bits a byte, low bits first,
// the ninth byte carrying 8 bits.
func (r *reader) varint() int64 {
	var v uint64
	for i := range 8 {
		c := r.u8()
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return int64(v)
		}
	}
	return int64(v | uint64(r.u8())<<56)
}

func (r *reader) long() int64 {
	if r.compressed {
		return r.varint()
	}
	b := r.fixed(8)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// int and short truncate as the JDK's readers do: an int field of -1 is
// written as the varint of 0xFFFFFFFF.
func (r *reader) int() int64 {
	if r.compressed {
		return int64(int32(r.varint()))
	}
	b := r.fixed(4)
	if b == nil {
		return 0
	}
	return int64(int32(binary.BigEndian.Uint32(b)))
}

func (r *reader) short() int64 {
	if r.compressed {
		return int64(int16(r.varint()))
	}
	b := r.fixed(2)
	if b == nil {
		return 0
	}
	return int64(int16(binary.BigEndian.Uint16(b)))
}

// count reads a length and checks it against the bytes left, each element
// taking at least min bytes: a hostile length never allocates.
func (r *reader) count(minSize int) int {
	n := r.int()
	if n < 0 || n > int64(r.left()/max(minSize, 1)) {
		r.fail("count %d exceeds the %d bytes left", n, r.left())
		return 0
	}
	return int(n)
}

func (r *reader) float() float64 {
	b := r.fixed(4)
	if b == nil {
		return 0
	}
	return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
}

func (r *reader) double() float64 {
	b := r.fixed(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

// String encodings (the JDK's StringEncoding).
const (
	strNull   = 0
	strEmpty  = 1
	strPool   = 2
	strUTF8   = 3
	strChars  = 4
	strLatin1 = 5
)

// str reads an encoded string. A reference into the string pool comes
// back as a ref for the caller to resolve.
func (r *reader) str() any {
	switch enc := r.u8(); enc {
	case strNull:
		return nil
	case strEmpty:
		return ""
	case strPool:
		return ref{typ: stringPoolType, key: r.long()}
	case strUTF8:
		return string(r.fixed(r.count(1)))
	case strLatin1:
		b := r.fixed(r.count(1))
		rs := make([]rune, len(b))
		for i, c := range b {
			rs[i] = rune(c)
		}
		return string(rs)
	case strChars:
		n := r.count(1)
		u := make([]uint16, n)
		for i := range u {
			u[i] = uint16(r.varint())
		}
		return string(utf16.Decode(u))
	default:
		r.fail("string encoding %d", enc)
		return nil
	}
}

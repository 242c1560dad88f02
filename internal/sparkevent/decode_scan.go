package sparkevent

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// scanner walks one JSON line for the task fast path. Any input it is not
// sure to read exactly as fastjson would sets bad, and the caller then
// uses the general decoder instead.
type scanner struct {
	b     []byte
	i     int
	depth int
	bad   bool
}

const maxScanDepth = 64

func (s *scanner) ws() {
	// Spark writes no whitespace between tokens, so one comparison (every
	// JSON whitespace byte is <= ' ') settles nearly every call; this is
	// called before every token.
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.bad || s.i >= len(s.b) {
		s.bad = true
		return 0
	}
	return s.b[s.i]
}

// end reports whether the line was read completely and without doubt.
func (s *scanner) end() bool {
	s.ws()
	return !s.bad && s.i == len(s.b)
}

// object reads an object, calling field for each key; field must read the
// value (or skip it).
func (s *scanner) object(field func(key []byte)) {
	s.fields(nil, func(_ int, key []byte) { field(key) })
}

// open reads the opening c ('{' or '[') of an object or array one level
// deeper; the caller reads the rest and then decrements depth. (No defer
// for the depth: this runs for every object of every task line, and the
// deferred closure showed in profiles.)
func (s *scanner) open(c byte) bool {
	if s.peek() != c {
		s.bad = true
		return false
	}
	s.i++
	if s.depth++; s.depth > maxScanDepth {
		s.bad = true
		return false
	}
	return true
}

// array reads an array, calling elem for each element; elem must read it.
func (s *scanner) array(elem func()) {
	if s.open('[') {
		s.elements(elem)
		s.depth--
	}
}

// elements reads an array's elements after its '['.
func (s *scanner) elements(elem func()) {
	if s.peek() == ']' {
		s.i++
		return
	}
	for !s.bad {
		elem()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.bad = true
		}
	}
}

// rawString reads a string at s.i ('"'), returning its raw content and
// whether it holds escapes.
//
// Most strings in a log are short keys ("Task ID", "Update"), where two
// bytes.IndexByte calls per string (one for the quote, one for a
// backslash) cost more in call overhead than the scan itself; it was a
// quarter of decoding time. So it looks for both bytes in one pass, eight
// bytes at a time.
func (s *scanner) rawString() ([]byte, bool) {
	s.i++
	start := s.i
	esc := false
	b := s.b
	i := s.i
	for {
		for i+8 <= len(b) {
			if m := quoteOrBackslash(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' {
			i++
		}
		if i >= len(b) {
			s.bad = true
			s.i = len(b)
			return nil, esc
		}
		if b[i] == '"' {
			s.i = i + 1
			return b[start:i], esc
		}
		esc = true
		i += 2 // past the backslash and the character it escapes
		if i > len(b) {
			s.bad = true
			s.i = len(b)
			return nil, esc
		}
	}
}

// quoteOrBackslash has the high bit set in each byte of w that is '"' or
// '\\' (SWAR zero-byte test on w XOR the byte repeated). Bytes above a
// match may be marked falsely, so only the lowest marked byte is exact.
func quoteOrBackslash(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := w ^ (lo * '"')
	bs := w ^ (lo * '\\')
	return ((q-lo)&^q | (bs-lo)&^bs) & hi
}

// number reads a number token with fastjson's lenient character set and
// returns it.
func (s *scanner) number() []byte {
	start := s.i
	for s.i < len(s.b) {
		if !isNumberByte(s.b[s.i]) {
			break
		}
		s.i++
	}
	if s.i == start {
		s.bad = true
	}
	return s.b[start:s.i]
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// int reads a value as fastjson's GetInt64 would: a plain integer is read,
// other types give 0. Numbers that are not plain int64 values make the
// scan bad. Digits are converted as they are found: most of a task line is
// integers, and a second pass over each token showed in profiles.
func (s *scanner) int() int64 {
	c := s.peek()
	if c != '-' && (c < '0' || c > '9') {
		s.skip()
		return 0
	}
	b, i := s.b, s.i
	neg := c == '-'
	if neg {
		i++
	}
	digits := i
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	nd := i - digits
	// A fraction, exponent or stray sign continues the token in fastjson's
	// lenient reading, so the number is not a plain integer.
	if nd == 0 || nd > 18 || i < len(b) && isNumberByte(b[i]) {
		s.bad = true
		return 0
	}
	s.i = i
	if neg {
		n = -n
	}
	return n
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == 'e' || c == 'E' || c == '+'
}

// str reads a string without escapes; another type gives nil.
func (s *scanner) str() []byte {
	if s.peek() != '"' {
		s.skip()
		return nil
	}
	b, esc := s.rawString()
	if esc {
		s.bad = true
	}
	return b
}

// bool reads true as true and any other value as false.
func (s *scanner) bool() bool {
	if s.peek() == 't' && s.literal("true") {
		return true
	}
	s.skip()
	return false
}

// null consumes a null and reports whether there was one.
func (s *scanner) null() bool {
	if s.peek() == 'n' {
		if s.literal("null") {
			return true
		}
		s.bad = true
	}
	return false
}

// scalar reads a value as anyString renders it: a string's content, "" for
// null, a number's or literal's text. Objects and arrays make the scan bad.
func (s *scanner) scalar() []byte {
	switch c := s.peek(); {
	case c == '"':
		return s.str()
	case c == 'n':
		if !s.literal("null") {
			s.bad = true
		}
		return nil
	case c == 't' || c == 'f':
		start := s.i
		if !s.literal("true") && !s.literal("false") {
			s.bad = true
		}
		return s.b[start:s.i]
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	default:
		s.bad = true
		return nil
	}
}

// raw skips a value and returns its JSON text.
func (s *scanner) raw() []byte {
	s.ws()
	start := s.i
	s.skip()
	if s.bad {
		return nil
	}
	return s.b[start:s.i]
}

// scalarOf renders a raw value as scalar does, marking the scan bad for
// values it cannot render exactly.
func (s *scanner) scalarOf(raw []byte) []byte {
	sub := scanner{b: raw}
	out := sub.scalar()
	if !sub.end() {
		s.bad = true
	}
	return out
}

// internalAccum skips an accumulable element written exactly as Spark 3
// writes a task's own metric or a SQL metric's update,
//
//	{"ID":1,"Name":"internal.metrics.executorRunTime","Update":1838,"Value":1838,"Internal":true,"Count Failed Values":true}
//	{"ID":9,"Name":"output rows","Update":"365","Value":"365","Internal":true,"Count Failed Values":true,"Metadata":"sql"}
//
// which the decoder does not keep (internal), adding a SQL metric's update
// to sqlUpdates, and reports whether it did; on any other element it
// leaves s where it was, for the general reading. Most of a Spark 3 task
// end is such elements: read through fields and its closures they were a
// quarter of decoding a log.
func (s *scanner) internalAccum(sqlUpdates *[]AccumUpdate) bool {
	start, depth := s.i, s.depth
	if !s.literal(`{"ID":`) {
		return false
	}
	id := s.int()
	ok := !s.bad && s.literal(`,"Name":`) && s.peek() == '"'
	var update []byte
	if ok {
		_, esc := s.rawString()
		ok = !s.bad && !esc && s.literal(`,"Update":`)
	}
	if ok {
		update, ok = s.plainScalar()
		ok = ok && s.literal(`,"Value":`)
	}
	if ok {
		_, ok = s.plainScalar()
		ok = ok && s.literal(`,"Internal":true,"Count Failed Values":true`)
	}
	sql := ok && s.literal(`,"Metadata":"sql"`)
	if !ok || !s.literal(`}`) {
		s.i, s.depth, s.bad = start, depth, false
		return false
	}
	if sql {
		if n, err := strconv.ParseInt(string(update), 10, 64); err == nil {
			*sqlUpdates = append(*sqlUpdates, AccumUpdate{ID: id, Value: n})
		}
	}
	return true
}

// plainScalar reads a number, or a string without escapes, as scalar
// does, reporting whether there was one.
func (s *scanner) plainScalar() ([]byte, bool) {
	if s.i >= len(s.b) {
		return nil, false
	}
	if c := s.b[s.i]; c == '"' {
		b, esc := s.rawString()
		return b, !esc && !s.bad
	} else if c != '-' && (c < '0' || c > '9') {
		return nil, false
	}
	b := s.number()
	return b, !s.bad
}

// skip reads any value.
func (s *scanner) skip() {
	switch c := s.peek(); {
	case c == '{':
		s.object(func([]byte) { s.skip() })
	case c == '[':
		s.array(s.skip)
	case c == '"':
		s.rawString()
	case c == 't':
		if !s.literal("true") {
			s.bad = true
		}
	case c == 'f':
		if !s.literal("false") {
			s.bad = true
		}
	case c == 'n':
		if !s.literal("null") {
			s.bad = true
		}
	case c == '-' || (c >= '0' && c <= '9'):
		s.number()
	default:
		s.bad = true
	}
}

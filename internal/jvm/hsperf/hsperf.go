// Package hsperf reads HotSpot's performance-counter files
// (/tmp/hsperfdata_<user>/<pid>), the memory-mapped buffer that jstat reads:
// GC per collector, heap generations and spaces, metaspace, class loading,
// threads, safepoints and JIT counters, with no agent in the JVM.
//
// The file is a 32-byte prologue followed by a chain of entries; each entry
// names one counter (a long or a string) with its units and variability.
// Parse decodes one snapshot of it; (*Snapshot).JVM gives the typed view.
package hsperf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/rawfile"
)

// Layout of the prologue and of an entry header (HotSpot perfMemory.hpp,
// PerfDataPrologue and PerfDataEntry, format version 2.0).
const (
	prologueSize    = 32
	entryHeaderSize = 20
	supportedMajor  = 2
)

// magic is the first four bytes of every hsperfdata file; the JVM writes
// 0xcafec0c0 so that it reads big-endian whatever the byte order of the rest.
var magic = [4]byte{0xca, 0xfe, 0xc0, 0xc0}

// Type is the JVM type code of an entry's data ('J' long, 'B' byte, ...).
type Type byte

// Data types HotSpot writes. Only TypeLong scalars and TypeByte vectors
// (strings) occur in practice; the others are decoded as raw bytes.
const (
	TypeByte   Type = 'B'
	TypeBool   Type = 'Z'
	TypeChar   Type = 'C'
	TypeShort  Type = 'S'
	TypeInt    Type = 'I'
	TypeLong   Type = 'J'
	TypeFloat  Type = 'F'
	TypeDouble Type = 'D'
)

// size is the width in bytes of one element of type t, or 0 if unknown.
func (t Type) size() int {
	switch t {
	case TypeByte, TypeBool:
		return 1
	case TypeChar, TypeShort:
		return 2
	case TypeInt, TypeFloat:
		return 4
	case TypeLong, TypeDouble:
		return 8
	}
	return 0
}

func (t Type) String() string { return string(rune(t)) }

// Units is the unit of measure of an entry (HotSpot PerfData::Units).
type Units byte

// Units values as HotSpot numbers them.
const (
	UnitsNone   Units = 1
	UnitsBytes  Units = 2
	UnitsTicks  Units = 3 // high-resolution timer ticks; see sun.os.hrt.frequency
	UnitsEvents Units = 4
	UnitsString Units = 5
	UnitsHertz  Units = 6
)

func (u Units) String() string {
	switch u {
	case UnitsNone:
		return "none"
	case UnitsBytes:
		return "bytes"
	case UnitsTicks:
		return "ticks"
	case UnitsEvents:
		return "events"
	case UnitsString:
		return "string"
	case UnitsHertz:
		return "hertz"
	}
	return "units(" + strconv.Itoa(int(u)) + ")"
}

// Variability says how an entry's value may change (PerfData::Variability).
type Variability byte

// Variability values as HotSpot numbers them.
const (
	Constant  Variability = 1
	Monotonic Variability = 2
	Variable  Variability = 3
)

func (v Variability) String() string {
	switch v {
	case Constant:
		return "constant"
	case Monotonic:
		return "monotonic"
	case Variable:
		return "variable"
	}
	return "variability(" + strconv.Itoa(int(v)) + ")"
}

// FlagSupported marks counters that are a supported interface (F_Supported);
// the others are internal to HotSpot and may change between releases.
const FlagSupported = 0x01

// Entry is one counter.
type Entry struct {
	Name        string
	Type        Type
	Units       Units
	Variability Variability
	Flags       byte
	// VectorLength is 0 for a scalar, else the number of elements.
	VectorLength int
	// Offset is where the entry starts in the buffer, for error messages.
	Offset int

	// Long holds the value of a scalar TypeLong entry.
	Long int64
	// Text holds a TypeByte vector up to its first NUL (HotSpot strings).
	Text string
	// Raw holds the data of any other type, in the buffer's byte order.
	Raw []byte

	data, size int // where the value lies in the buffer, its bytes
}

// IsLong reports whether the entry is a long scalar, the type of every
// HotSpot counter that is a number.
func (e *Entry) IsLong() bool { return e.Type == TypeLong && e.VectorLength == 0 }

// IsText reports whether the entry is a byte vector, which HotSpot uses
// only for strings.
func (e *Entry) IsText() bool { return e.Type == TypeByte && e.VectorLength > 0 }

// Prologue is the header of the buffer.
type Prologue struct {
	ByteOrder binary.ByteOrder
	Major     int
	Minor     int
	// Accessible is false while the JVM is still initialising the buffer.
	Accessible bool
	// Used is how many bytes of the buffer hold entries (prologue included).
	Used int
	// Overflow counts bytes of counters that did not fit (PerfDataMemorySize).
	Overflow int
	// ModTimeStamp is the hrt tick of the last structural change (an entry
	// added); a reader can re-read the entries when it moves.
	ModTimeStamp int64
	EntryOffset  int
	// NumEntries is the number of entries the prologue declares.
	NumEntries int
}

// Snapshot is one parsed reading of a buffer. It holds no reference to the
// bytes it was parsed from.
type Snapshot struct {
	Prologue
	// PID is the process id taken from the file name by ReadFile, else 0.
	// For a JVM in a container it is the pid inside the container's pid
	// namespace, which is what the JVM names its file after.
	PID int
	// Entries in buffer order.
	Entries []Entry
	// Partial is nil when all NumEntries entries were read. Otherwise it
	// says where reading stopped: a JVM bumps num_entries before it fills
	// an entry in, and grows the chain while it runs, so a live buffer can
	// end in a half-written entry. Entries holds the consistent prefix.
	Partial error

	index map[string]int
}

// FormatError is a problem in a buffer, at a byte offset.
type FormatError struct {
	File   string // set by ReadFile
	Offset int
	Msg    string
	Err    error // ErrNotInitialized, or nil
}

func (e *FormatError) Error() string {
	msg := e.Msg
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.File != "" {
		return fmt.Sprintf("hsperf: %s offset %d: %s", e.File, e.Offset, msg)
	}
	return fmt.Sprintf("hsperf: offset %d: %s", e.Offset, msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(off int, format string, a ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, a...)}
}

// Parse decodes a buffer. It fails only when the prologue is unusable; a
// problem in the entries ends them and is reported in Snapshot.Partial.
func Parse(b []byte) (*Snapshot, error) {
	p, err := parsePrologue(b)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Prologue: p}
	s.Partial = s.parseEntries(b)
	s.index = make(map[string]int, len(s.Entries))
	for i := range s.Entries {
		if _, dup := s.index[s.Entries[i].Name]; !dup {
			s.index[s.Entries[i].Name] = i
		}
	}
	return s, nil
}

// ErrNotInitialized is wrapped by the error for an empty buffer or one whose
// prologue is still zero: the JVM has created (and sized) its file but not
// written it yet. Reading again a moment later succeeds.
var ErrNotInitialized = errors.New("not initialized yet")

func parsePrologue(b []byte) (Prologue, error) {
	var p Prologue
	if len(b) == 0 {
		return p, &FormatError{Offset: 0, Msg: "empty", Err: ErrNotInitialized}
	}
	if len(b) < prologueSize {
		return p, formatErr(0, "buffer of %d bytes is shorter than the %d-byte prologue", len(b), prologueSize)
	}
	if [4]byte(b[:4]) == [4]byte{} {
		return p, &FormatError{Offset: 0, Msg: "magic is zero", Err: ErrNotInitialized}
	}
	if [4]byte(b[:4]) != magic {
		return p, formatErr(0, "magic %#08x, want 0xcafec0c0", binary.BigEndian.Uint32(b))
	}
	switch b[4] {
	case 0:
		p.ByteOrder = binary.BigEndian
	case 1:
		p.ByteOrder = binary.LittleEndian
	default:
		return p, formatErr(4, "byte order %d, want 0 (big endian) or 1 (little endian)", b[4])
	}
	p.Major, p.Minor = int(b[5]), int(b[6])
	if p.Major != supportedMajor {
		return p, formatErr(5, "version %d.%d, want %d.x", p.Major, p.Minor, supportedMajor)
	}
	p.Accessible = b[7] != 0
	bo := p.ByteOrder
	p.Used = int(int32(bo.Uint32(b[8:])))
	p.Overflow = int(int32(bo.Uint32(b[12:])))
	p.ModTimeStamp = int64(bo.Uint64(b[16:]))
	p.EntryOffset = int(int32(bo.Uint32(b[24:])))
	p.NumEntries = int(int32(bo.Uint32(b[28:])))
	return p, nil
}

// parseEntries appends every consistent entry and returns why it stopped
// early, or nil.
func (s *Snapshot) parseEntries(b []byte) error {
	if s.NumEntries < 0 {
		return formatErr(28, "num_entries %d is negative", s.NumEntries)
	}
	if s.NumEntries == 0 {
		return nil
	}
	limit := s.Used
	switch {
	case limit < prologueSize:
		return formatErr(8, "used %d is smaller than the prologue but num_entries is %d", limit, s.NumEntries)
	case limit > len(b):
		// The file is shorter than the JVM says it has written: keep what
		// is there; an entry crossing the end is reported below.
		limit = len(b)
	}
	if s.EntryOffset < prologueSize || s.EntryOffset > limit {
		return formatErr(24, "entry_offset %d outside [%d, %d]", s.EntryOffset, prologueSize, limit)
	}
	// One conversion of the whole used area: names and strings below are
	// substrings of it, so parsing costs a single allocation for text.
	text := string(b[:limit])
	s.Entries = make([]Entry, 0, min(s.NumEntries, (limit-s.EntryOffset)/entryHeaderSize))
	off := s.EntryOffset
	for i := 0; i < s.NumEntries; i++ {
		e, next, err := parseEntry(b[:limit], text, off, s.ByteOrder)
		if err != nil {
			err.Msg = fmt.Sprintf("entry %d of %d: %s", i, s.NumEntries, err.Msg)
			return err
		}
		s.Entries = append(s.Entries, e)
		off = next
	}
	return nil
}

// parseEntry decodes the entry at off in b (b ends at the used limit) and
// returns the offset of the next one.
func parseEntry(b []byte, text string, off int, bo binary.ByteOrder) (Entry, int, *FormatError) {
	e := Entry{Offset: off}
	if off+entryHeaderSize > len(b) {
		return e, 0, formatErr(off, "entry header of %d bytes past end of used area at %d", entryHeaderSize, len(b))
	}
	h := b[off : off+entryHeaderSize]
	length := int(int32(bo.Uint32(h[0:])))
	nameOff := int(int32(bo.Uint32(h[4:])))
	e.VectorLength = int(int32(bo.Uint32(h[8:])))
	e.Type = Type(h[12])
	e.Flags = h[13]
	e.Units = Units(h[14])
	e.Variability = Variability(h[15])
	dataOff := int(int32(bo.Uint32(h[16:])))

	if length < entryHeaderSize || length > len(b)-off {
		return e, 0, formatErr(off, "entry length %d outside [%d, %d]", length, entryHeaderSize, len(b)-off)
	}
	if nameOff < entryHeaderSize || nameOff >= length {
		return e, 0, formatErr(off+4, "name offset %d outside entry of %d bytes", nameOff, length)
	}
	if dataOff < entryHeaderSize || dataOff > length {
		return e, 0, formatErr(off+16, "data offset %d outside entry of %d bytes", dataOff, length)
	}
	if e.VectorLength < 0 {
		return e, 0, formatErr(off+8, "vector length %d is negative", e.VectorLength)
	}
	size := e.Type.size()
	if size == 0 {
		return e, 0, formatErr(off+12, "unknown data type %#02x", byte(e.Type))
	}
	n := size * max(e.VectorLength, 1)
	if e.VectorLength > length || n > length-dataOff {
		return e, 0, formatErr(off+16, "data of %d bytes at %d past end of entry of %d bytes", n, dataOff, length)
	}
	// The name runs to a NUL, which must come before the data (if the data
	// follows it) or the end of the entry.
	nameEnd := length
	if dataOff > nameOff {
		nameEnd = dataOff
	}
	name, ok := cstring(text[off+nameOff : off+nameEnd])
	if !ok || name == "" {
		return e, 0, formatErr(off+nameOff, "entry name not NUL-terminated within %d bytes", nameEnd-nameOff)
	}
	e.Name = name

	d := off + dataOff
	e.data, e.size = d, n
	switch {
	case e.IsLong():
		e.Long = int64(bo.Uint64(b[d:]))
	case e.IsText():
		e.Text, _ = cstring(text[d : d+n])
	default:
		e.Raw = append([]byte(nil), b[d:d+n]...)
	}
	return e, off + length, nil
}

// cstring returns s up to its first NUL and whether there was one.
func cstring(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i], true
		}
	}
	return s, false
}

// ReadFile reads and parses an hsperfdata file. A plain read of the file
// the JVM has mapped sees its current counters; a value being written at
// that moment may be torn, which the next sample corrects. When the file
// name is a number (as /tmp/hsperfdata_<user>/<pid> is) it becomes
// Snapshot.PID. Errors, including Snapshot.Partial, name the file.
func ReadFile(path string) (*Snapshot, error) {
	f := rawfile.NewLimited(path, MaxFileSize)
	b, err := f.Read(nil)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("hsperf: %s: %w", path, err)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, nameFile(err, path)
	}
	s.Partial = nameFile(s.Partial, path)
	if pid, err := strconv.Atoi(filepath.Base(path)); err == nil {
		s.PID = pid
	}
	return s, nil
}

func nameFile(err error, path string) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		fe.File = path
	}
	return err
}

// Lookup returns the entry called name.
func (s *Snapshot) Lookup(name string) (*Entry, bool) {
	i, ok := s.index[name]
	if !ok {
		return nil, false
	}
	return &s.Entries[i], true
}

// Long returns the value of the long counter called name.
func (s *Snapshot) Long(name string) (int64, bool) {
	e, ok := s.Lookup(name)
	if !ok || !e.IsLong() {
		return 0, false
	}
	return e.Long, true
}

// String returns the value of the string counter called name.
func (s *Snapshot) String(name string) (string, bool) {
	e, ok := s.Lookup(name)
	if !ok || !e.IsText() {
		return "", false
	}
	return e.Text, true
}

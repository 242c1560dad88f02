package hprof

import (
	"cmp"
	"slices"
	"unicode/utf16"

	"github.com/cespare/xxhash/v2"
)

// Duplicate strings need the link from each String to its value array, but
// the dump gives Strings and arrays in address order, either first. Keeping
// objects is not an option, so the tracker keeps two compact lists and joins
// them at the end:
//
//   - per String: the value array id with the coder in its low bit (8 bytes);
//   - per byte[]/char[] array: a 64-bit content hash and one word packing the
//     id, the element type and the length (16 bytes).
//
// Memory is 8 bytes per String plus 16 bytes per byte/char array, bounded by
// Options.MaxStrings entries each (default 2M: at most 48 MB, allocated up
// front from the dump size so that growth never copies). Past the bound the
// summary is marked incomplete rather than growing. Arrays longer than
// maxTrackedLen bytes are not strings worth deduplicating and are skipped.
// Contents are not kept: the first bytes of a value are sampled when its hash
// is seen again soon after (a 2 MB direct-mapped table), for at most
// sampleLimit values, so the text of a top repeated value is usually shown.
type stringTracker struct {
	classID  uint64
	valueOff int // offset of "value" in a String's instance bytes; -1 unknown
	coderOff int // offset of "coder"; -1 when absent (JDK 8 char[] strings)
	max      int

	values  []uint64 // value id | coder bit
	arrays  []arrayRec
	samples map[uint64]string
	seen    []uint64 // direct-mapped table of recent hashes: a hit means a repeat worth sampling
	// h hashes large arrays piece by piece as Sum64 does small ones whole.
	// The hash is fixed (xxHash), not seeded per process, so that which
	// values are sampled, and so the report, is the same on every run.
	h       *xxhash.Digest
	dropped int64
}

// arrayRec is one byte[]/char[]: meta packs bit 63 = char[], bits 19..62 =
// id>>3 (44 bits: 8-byte aligned addresses below 128 TiB), bits 0..18 = the
// data length. After the join meta is reused: see summary.
type arrayRec struct {
	hash uint64
	meta uint64
}

const (
	sampleLimit   = 1 << 14
	seenSlots     = 1 << 18
	sampleBytes   = 96
	maxTrackedLen = 1<<19 - 1
	charBit       = 1 << 63
)

func newStringTracker(max int, sizeHint int64) *stringTracker {
	slots := uint64(1 << 10)
	for slots < seenSlots && int64(slots)*256 < sizeHint {
		slots <<= 1
	}
	t := &stringTracker{valueOff: -1, coderOff: -1, max: max, samples: map[uint64]string{},
		seen: make([]uint64, slots), h: xxhash.New()}
	// A String and its array take at least ~70 bytes of dump.
	if est := sizeHint / 70; est > 0 {
		c := int(min(est, int64(max)))
		t.values = make([]uint64, 0, c)
		t.arrays = make([]arrayRec, 0, c)
	}
	return t
}

// setFields finds the value and coder fields in java.lang.String's
// instance data (its own fields: Object has none).
func (t *stringTracker) setFields(fields []fieldDesc, utf8 map[uint64]string, idSize int) {
	off := 0
	t.valueOff, t.coderOff = -1, -1
	for _, f := range fields {
		switch utf8[f.nameID] {
		case "value":
			if f.typ == typeObject {
				t.valueOff = off
			}
		case "coder":
			if f.typ == typeByte {
				t.coderOff = off
			}
		}
		off += typeSize(f.typ, idSize)
	}
}

func (t *stringTracker) addString(v []byte, idSize int) {
	if t.valueOff+idSize > len(v) {
		return
	}
	id := getID(v[t.valueOff:], idSize)
	if id == 0 || id&7 != 0 {
		return
	}
	if t.coderOff >= 0 && t.coderOff < len(v) && v[t.coderOff] == 1 {
		id |= 1
	}
	if len(t.values) >= t.max {
		t.dropped++
		return
	}
	t.values = append(t.values, id)
}

// addArray hashes a byte[] or char[] while consuming its data.
func (t *stringTracker) addArray(d *decoder, id uint64, typ byte, n int64) error {
	if n > maxTrackedLen || id&7 != 0 || id>>47 != 0 {
		return d.skip(n)
	}
	if len(t.arrays) >= t.max {
		t.dropped++
		return d.skip(n)
	}
	var hash uint64
	var sample []byte
	if n <= int64(d.max) {
		b, err := d.next(int(n))
		if err != nil {
			return err
		}
		hash = xxhash.Sum64(b)
		sample = b
	} else {
		t.h.Reset()
		if err := d.each(n, func(b []byte) {
			_, _ = t.h.Write(b)
		}); err != nil {
			return err
		}
		hash = t.h.Sum64()
	}
	meta := id>>3<<19 | uint64(n)
	if typ == typeChar {
		meta |= charBit
		hash = ^hash // a char[] and a byte[] with the same bytes differ
	}
	t.arrays = append(t.arrays, arrayRec{hash: hash, meta: meta})
	slot := &t.seen[hash&uint64(len(t.seen)-1)]
	repeat := *slot == hash
	*slot = hash
	if sample != nil && repeat && len(t.samples) < sampleLimit {
		if _, ok := t.samples[hash]; !ok {
			if len(sample) > sampleBytes {
				sample = sample[:sampleBytes]
			}
			t.samples[hash] = string(sample)
		}
	}
	return nil
}

// StringSummary is the duplicate-string report.
type StringSummary struct {
	Strings     int64       `json:"strings"`     // Strings whose value array was found
	Distinct    int64       `json:"distinct"`    // distinct values among them
	Duplicates  int64       `json:"duplicates"`  // Strings whose value another String already has
	WastedBytes int64       `json:"wastedBytes"` // bytes of value arrays holding a repeated value
	Top         []DupString `json:"top"`
	Incomplete  bool        `json:"incomplete"` // the tracking bound was reached
}

// DupString is one repeated value.
type DupString struct {
	Value       string `json:"value"` // first characters, when sampled
	Count       int64  `json:"count"`
	WastedBytes int64  `json:"wastedBytes"`
}

type dupGroup struct {
	hash          uint64
	first         uint64 // the group's first array in address order: ties sort by it, not by the per-process hash
	strings, arrs int64
	wasted        int64
	coder, typ    byte
}

// After the join, meta holds: bit 63 char[], bits 36..62 the array's rank
// in address order among those Strings share (saturating), bits 20..35 the
// number of Strings sharing the array (saturating), bit 19 the coder, bits
// 0..18 the length.
const (
	joinCoderBit  = 1 << 19
	joinShift     = 20
	joinRankShift = 36
	joinRankMax   = 1<<27 - 1
)

func (t *stringTracker) summary(l Layout, top int) StringSummary {
	sum := StringSummary{Incomplete: t.dropped > 0}
	slices.Sort(t.values)
	idOf := func(a arrayRec) uint64 { return (a.meta &^ charBit) >> 19 << 3 }
	slices.SortFunc(t.arrays, func(a, b arrayRec) int { return cmp.Compare(idOf(a), idOf(b)) })
	hits := t.arrays[:0]
	i := 0
	for _, a := range t.arrays {
		id := idOf(a)
		for i < len(t.values) && t.values[i]&^1 < id {
			i++
		}
		n := uint64(0)
		coder := uint64(0)
		for i < len(t.values) && t.values[i]&^1 == id {
			coder = t.values[i] & 1
			n++
			i++
		}
		if n > 0 {
			rank := min(uint64(len(hits)), joinRankMax)
			a.meta = a.meta&charBit | rank<<joinRankShift | min(n, 1<<16-1)<<joinShift | coder*joinCoderBit | a.meta&maxTrackedLen
			hits = append(hits, a)
		}
	}
	slices.SortFunc(hits, func(a, b arrayRec) int { return cmp.Compare(a.hash, b.hash) })
	var groups []dupGroup
	for j := 0; j < len(hits); {
		first := hits[j]
		g := dupGroup{hash: first.hash, typ: typeByte}
		if first.meta&charBit != 0 {
			g.typ = typeChar
		}
		if first.meta&joinCoderBit != 0 {
			g.coder = 1
		}
		size := l.ArrayBytes(typeSize(g.typ, 8), uint32(first.meta&maxTrackedLen)/uint32(typeSize(g.typ, 8)))
		k := j
		g.first = joinRankMax
		for ; k < len(hits) && hits[k].hash == g.hash; k++ {
			g.strings += int64(hits[k].meta >> joinShift & (1<<16 - 1))
			g.first = min(g.first, hits[k].meta>>joinRankShift&joinRankMax)
			g.arrs++
		}
		g.wasted = (g.arrs - 1) * size
		sum.Strings += g.strings
		sum.Distinct++
		sum.Duplicates += g.strings - 1
		sum.WastedBytes += g.wasted
		if g.strings > 1 {
			groups = append(groups, g)
		}
		j = k
	}
	slices.SortFunc(groups, func(a, b dupGroup) int {
		if c := cmp.Compare(b.strings, a.strings); c != 0 {
			return c
		}
		if c := cmp.Compare(b.wasted, a.wasted); c != 0 {
			return c
		}
		if c := cmp.Compare(t.samples[a.hash], t.samples[b.hash]); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	for _, g := range groups[:min(top, len(groups))] {
		d := DupString{Count: g.strings, WastedBytes: g.wasted}
		if s, ok := t.samples[g.hash]; ok {
			d.Value = decodeString(s, g.typ, g.coder)
		}
		sum.Top = append(sum.Top, d)
	}
	return sum
}

// decodeString turns a value array's bytes into text: char[] is UTF-16BE in
// the dump; a compact-strings byte[] is Latin-1 (coder 0) or UTF-16 in the
// JVM's (little-endian) byte order (coder 1).
func decodeString(s string, typ, coder byte) string {
	b := []byte(s)
	if typ == typeChar || coder == 1 {
		u := make([]uint16, len(b)/2)
		for i := range u {
			if typ == typeChar {
				u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
			} else {
				u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
			}
		}
		return string(utf16.Decode(u))
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

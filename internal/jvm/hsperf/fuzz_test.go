package hsperf

import (
	"encoding/binary"
	"path/filepath"
	"testing"
)

// FuzzHsperf feeds corrupted, truncated and growing buffers to Parse and
// the typed view: they must never panic, and what Parse returns must lie
// inside the buffer.
func FuzzHsperf(f *testing.F) {
	for _, name := range fixtures {
		b := readFixture(f, name)
		s, err := Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		used := b[:s.Used] // the mapped file's zero tail adds nothing
		f.Add(used, uint16(len(used)), uint16(s.NumEntries))
		f.Add(used, uint16(len(used)/2), uint16(s.NumEntries+3))
		f.Add(reencode(s, binary.BigEndian, false)[:s.Used], uint16(100), uint16(7))
	}
	f.Fuzz(func(t *testing.T, b []byte, cut, entries uint16) {
		check := func(b []byte) {
			s, err := Parse(b)
			if err != nil {
				if s != nil {
					t.Fatalf("got snapshot and error %v", err)
				}
				return
			}
			if len(s.Entries) > max(s.NumEntries, 0) {
				t.Fatalf("got %d entries, num_entries %d", len(s.Entries), s.NumEntries)
			}
			for i := range s.Entries {
				e := &s.Entries[i]
				if e.Offset < prologueSize || e.Offset+entryHeaderSize > len(b) {
					t.Fatalf("entry %q at offset %d outside buffer of %d", e.Name, e.Offset, len(b))
				}
				if len(e.Name)+len(e.Text)+len(e.Raw) > len(b) {
					t.Fatalf("entry %q holds more than the buffer", e.Name)
				}
				if _, ok := s.Lookup(e.Name); !ok {
					t.Fatalf("Lookup(%q) failed", e.Name)
				}
			}
			j := s.JVM()
			_ = j.Heap.OldRatio() + j.Heap.UsedRatio()
		}
		check(b)
		// The same buffer cut short, as a file read while it grows.
		if n := int(cut); n < len(b) {
			check(b[:n])
		}
		// And with more (or fewer) entries declared than written.
		if len(b) >= prologueSize {
			g := append([]byte(nil), b...)
			order := binary.ByteOrder(binary.LittleEndian)
			if g[4] == 0 {
				order = binary.BigEndian
			}
			order.PutUint32(g[28:], uint32(entries))
			check(g)
		}
	})
}

// FuzzReader: a Reader reading a buffer and then another one (the second
// often the first with bytes changed, as a live JVM changes its file)
// returns for the second exactly what a fresh parse does.
func FuzzReader(f *testing.F) {
	for _, name := range fixtures {
		b := readFixture(f, name)
		s, err := Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		used := b[:s.Used]
		f.Add(used, uint16(200), byte(7), uint16(0))
		f.Add(used, uint16(s.EntryOffset+40), byte(0xff), uint16(len(used)/2))
		f.Add(used, uint16(16), byte(1), uint16(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, at uint16, xor byte, cut uint16) {
		second := append([]byte(nil), b...)
		if int(at) < len(second) {
			second[at] ^= xor
		}
		if c := int(cut); c > 0 && c < len(second) {
			second = second[:c]
		}
		path := filepath.Join(t.TempDir(), "77")
		readTwice(t, path, b, second)
	})
}

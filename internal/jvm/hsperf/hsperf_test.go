package hsperf

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtures are hsperfdata files copied from real JVMs by testdata/capture.sh.
var fixtures = []string{
	"jdk17-serial", "jdk17-parallel", "jdk17-g1", "jdk17-z", "jdk17-shenandoah",
	"jdk25-g1", "jdk25-z",
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".hsperf"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dump renders every entry, one a line, for the golden files.
func dump(s *Snapshot) string {
	var w strings.Builder
	fmt.Fprintf(&w, "order=%v version=%d.%d accessible=%v used=%d overflow=%d entries=%d/%d partial=%v\n",
		s.ByteOrder, s.Major, s.Minor, s.Accessible, s.Used, s.Overflow, len(s.Entries), s.NumEntries, s.Partial)
	for _, e := range s.Entries {
		var v string
		switch {
		case e.IsLong():
			v = fmt.Sprint(e.Long)
		case e.IsText():
			v = fmt.Sprintf("%q", e.Text)
		default:
			v = fmt.Sprintf("% x", e.Raw)
		}
		fmt.Fprintf(&w, "%6d %s %s[%d] %s %s flags=%d = %s\n",
			e.Offset, e.Name, e.Type, e.VectorLength, e.Units, e.Variability, e.Flags, v)
	}
	return w.String()
}

func TestParseFixtures(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name+".hsperf")
			s, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Partial != nil {
				t.Errorf("got Partial %v, want nil", s.Partial)
			}
			if !s.Accessible {
				t.Error("got Accessible false, want true for a running JVM")
			}
			if len(s.Entries) != s.NumEntries {
				t.Errorf("got %d entries, want num_entries %d", len(s.Entries), s.NumEntries)
			}
			if s.ByteOrder != binary.LittleEndian {
				t.Errorf("got byte order %v, want little endian (captured on amd64)", s.ByteOrder)
			}
			raw := readFixture(t, name)
			seen := map[string]bool{}
			end := s.EntryOffset
			for _, e := range s.Entries {
				if seen[e.Name] {
					t.Errorf("entry %q twice", e.Name)
				}
				seen[e.Name] = true
				if e.Offset != end {
					t.Errorf("entry %q at %d, want %d (entries are contiguous)", e.Name, e.Offset, end)
				}
				end = e.Offset + int(binary.LittleEndian.Uint32(raw[e.Offset:]))
				if !e.IsLong() && !e.IsText() {
					t.Errorf("entry %q of type %s[%d]: HotSpot writes only J and B[]", e.Name, e.Type, e.VectorLength)
				}
				if e.IsText() != (e.Units == UnitsString) {
					t.Errorf("entry %q: text %v but units %s", e.Name, e.IsText(), e.Units)
				}
			}
			if end != s.Used {
				t.Errorf("entries end at %d, want used %d", end, s.Used)
			}
			for _, want := range []string{"sun.os.hrt.frequency", "java.threads.live", "sun.gc.metaspace.used"} {
				if _, ok := s.Long(want); !ok {
					t.Errorf("Long(%q) missing", want)
				}
			}
			if cmd, ok := s.String("sun.rt.javaCommand"); !ok || cmd != "Workload" {
				t.Errorf("got javaCommand %q, %v, want Workload (the program capture.sh runs)", cmd, ok)
			}
			if _, ok := s.Long("sun.rt.javaCommand"); ok {
				t.Error("Long of a string entry succeeded")
			}
			if _, ok := s.String("java.threads.live"); ok {
				t.Error("String of a long entry succeeded")
			}
			if s.PID != 0 {
				t.Errorf("got PID %d from %s, want 0", s.PID, path)
			}
			golden(t, filepath.Join("testdata", name+".golden"), dump(s))
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s", path, got)
	}
}

// reencode writes a snapshot back as a buffer in the given byte order, the
// way HotSpot lays it out: the name after the header, the data 8-aligned.
func reencode(s *Snapshot, bo binary.ByteOrder, accessible bool) []byte {
	var body bytes.Buffer
	for _, e := range s.Entries {
		nameOff := entryHeaderSize
		dataOff := (nameOff + len(e.Name) + 1 + 7) &^ 7
		var data []byte
		switch {
		case e.IsLong():
			data = make([]byte, 8)
			bo.PutUint64(data, uint64(e.Long))
		case e.IsText():
			data = make([]byte, e.VectorLength)
			copy(data, e.Text)
		default:
			data = e.Raw
		}
		length := (dataOff + len(data) + 7) &^ 7
		h := make([]byte, length)
		bo.PutUint32(h[0:], uint32(length))
		bo.PutUint32(h[4:], uint32(nameOff))
		bo.PutUint32(h[8:], uint32(e.VectorLength))
		h[12], h[13], h[14], h[15] = byte(e.Type), e.Flags, byte(e.Units), byte(e.Variability)
		bo.PutUint32(h[16:], uint32(dataOff))
		copy(h[nameOff:], e.Name)
		copy(h[dataOff:], data)
		body.Write(h)
	}
	b := make([]byte, prologueSize, prologueSize+body.Len()+1024)
	copy(b, magic[:])
	if bo == binary.LittleEndian {
		b[4] = 1
	}
	b[5], b[6] = byte(s.Major), byte(s.Minor)
	if accessible {
		b[7] = 1
	}
	bo.PutUint32(b[8:], uint32(prologueSize+body.Len()))
	bo.PutUint64(b[16:], uint64(s.ModTimeStamp))
	bo.PutUint32(b[24:], prologueSize)
	bo.PutUint32(b[28:], uint32(len(s.Entries)))
	b = append(b, body.Bytes()...)
	return append(b, make([]byte, 1024)...) // unused tail, as in the mapped file
}

func TestParseBigEndian(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			orig, err := Parse(readFixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			be, err := Parse(reencode(orig, binary.BigEndian, true))
			if err != nil {
				t.Fatal(err)
			}
			if be.Partial != nil {
				t.Fatalf("got Partial %v, want nil", be.Partial)
			}
			if be.ByteOrder != binary.BigEndian {
				t.Errorf("got byte order %v, want big endian", be.ByteOrder)
			}
			if len(be.Entries) != len(orig.Entries) {
				t.Fatalf("got %d entries, want %d", len(be.Entries), len(orig.Entries))
			}
			for i, e := range orig.Entries {
				g := be.Entries[i]
				if g.Name != e.Name || g.Long != e.Long || g.Text != e.Text || g.Units != e.Units ||
					g.Variability != e.Variability || g.Type != e.Type || g.Flags != e.Flags {
					t.Errorf("entry %d: got %+v, want %+v", i, g, e)
				}
			}
		})
	}
}

// TestParseGrowing replays how a JVM grows its buffer: it raises
// num_entries and used, then fills the entry in. Every prefix must parse,
// and a declared but unwritten entry must end the chain with Partial.
func TestParseGrowing(t *testing.T) {
	orig, err := Parse(readFixture(t, "jdk17-g1"))
	if err != nil {
		t.Fatal(err)
	}
	whole := reencode(orig, binary.LittleEndian, false)
	full, err := Parse(whole)
	if err != nil || full.Partial != nil || len(full.Entries) != len(orig.Entries) {
		t.Fatalf("re-encoded buffer: %v, %v, %d entries", err, full.Partial, len(full.Entries))
	}
	for n := 0; n <= len(full.Entries); n += 7 {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b := bytes.Clone(whole)
			end := len(whole) - 1024
			if n < len(full.Entries) {
				end = full.Entries[n].Offset
			}
			// The buffer as it is just after entry n was allocated but
			// before it was written: declared, counted in used, all zero.
			declared := n
			used := end
			if n < len(full.Entries) {
				declared = n + 1
				used = full.Entries[n].Offset + 24
				clear(b[end:])
			}
			binary.LittleEndian.PutUint32(b[8:], uint32(used))
			binary.LittleEndian.PutUint32(b[28:], uint32(declared))
			s, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if s.Accessible {
				t.Error("got Accessible true, want false")
			}
			if len(s.Entries) != n {
				t.Fatalf("got %d entries, want %d", len(s.Entries), n)
			}
			for i := range s.Entries {
				if s.Entries[i].Name != full.Entries[i].Name {
					t.Errorf("entry %d: got %q, want %q", i, s.Entries[i].Name, full.Entries[i].Name)
				}
			}
			if declared > n {
				want := fmt.Sprintf("offset %d: entry %d of %d:", end, n, declared)
				if s.Partial == nil || !strings.Contains(s.Partial.Error(), want) {
					t.Errorf("got Partial %v, want it to contain %q", s.Partial, want)
				}
			} else if s.Partial != nil {
				t.Errorf("got Partial %v, want nil", s.Partial)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	good := readFixture(t, "jdk17-serial")
	s, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	first := s.EntryOffset // offset of entry 0
	second := s.Entries[1].Offset
	le := binary.LittleEndian
	tests := []struct {
		name    string
		mutate  func(b []byte) []byte
		err     string // from Parse
		partial string // in Snapshot.Partial
		entries int    // entries read when Partial
	}{
		{name: "empty", mutate: func(b []byte) []byte { return nil },
			err: "hsperf: offset 0: empty: not initialized yet"},
		{name: "short", mutate: func(b []byte) []byte { return b[:31] },
			err: "hsperf: offset 0: buffer of 31 bytes is shorter than the 32-byte prologue"},
		{name: "zero prologue", mutate: func(b []byte) []byte { clear(b); return b },
			err: "hsperf: offset 0: magic is zero: not initialized yet"},
		{name: "magic", mutate: func(b []byte) []byte { b[0] = 0xca; b[1] = 0xfe; b[2] = 0xba; b[3] = 0xbe; return b },
			err: "hsperf: offset 0: magic 0xcafebabe, want 0xcafec0c0"},
		{name: "byte order", mutate: func(b []byte) []byte { b[4] = 7; return b },
			err: "hsperf: offset 4: byte order 7"},
		{name: "version", mutate: func(b []byte) []byte { b[5] = 1; return b },
			err: "hsperf: offset 5: version 1.0, want 2.x"},
		{name: "negative entries", mutate: func(b []byte) []byte { le.PutUint32(b[28:], 0xffffffff); return b },
			partial: "hsperf: offset 28: num_entries -1 is negative"},
		{name: "entry offset", mutate: func(b []byte) []byte { le.PutUint32(b[24:], 1<<20); return b },
			partial: "hsperf: offset 24: entry_offset 1048576 outside"},
		{name: "used too small", mutate: func(b []byte) []byte { le.PutUint32(b[8:], 16); return b },
			partial: "hsperf: offset 8: used 16 is smaller than the prologue"},
		{name: "truncated file", mutate: func(b []byte) []byte { return b[:second+10] }, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: entry header of 20 bytes past end", second, s.NumEntries)},
		{name: "entry length", mutate: func(b []byte) []byte { le.PutUint32(b[second:], 1<<30); return b }, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: entry length 1073741824 outside", second, s.NumEntries)},
		{name: "entry length zero", mutate: func(b []byte) []byte { le.PutUint32(b[first:], 0); return b },
			partial: fmt.Sprintf("hsperf: offset %d: entry 0 of %d: entry length 0 outside", first, s.NumEntries)},
		{name: "name offset", mutate: func(b []byte) []byte { le.PutUint32(b[second+4:], 4); return b }, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: name offset 4 outside", second+4, s.NumEntries)},
		{name: "name unterminated", mutate: func(b []byte) []byte {
			length := int(le.Uint32(b[second:]))
			le.PutUint32(b[second+16:], uint32(length-8))
			for i := second + 20; i < second+length-8; i++ {
				b[i] = 'x'
			}
			return b
		}, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: entry name not NUL-terminated", second+20, s.NumEntries)},
		{name: "data offset", mutate: func(b []byte) []byte { le.PutUint32(b[second+16:], 1<<20); return b }, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: data offset 1048576 outside", second+16, s.NumEntries)},
		{name: "data past entry", mutate: func(b []byte) []byte { le.PutUint32(b[second+8:], 1000); b[second+12] = 'B'; return b }, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: data of 1000 bytes", second+16, s.NumEntries)},
		{name: "vector length negative", mutate: func(b []byte) []byte { le.PutUint32(b[second+8:], 0xfffffff0); return b }, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: vector length -16 is negative", second+8, s.NumEntries)},
		{name: "type", mutate: func(b []byte) []byte { b[second+12] = 'Q'; return b }, entries: 1,
			partial: fmt.Sprintf("hsperf: offset %d: entry 1 of %d: unknown data type 0x51", second+12, s.NumEntries)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.mutate(bytes.Clone(good)))
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("got error %v, want prefix %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want a partial snapshot", err)
			}
			if s.Partial == nil || !strings.HasPrefix(s.Partial.Error(), tt.partial) {
				t.Errorf("got Partial %v, want prefix %q", s.Partial, tt.partial)
			}
			if len(s.Entries) != tt.entries {
				t.Errorf("got %d entries, want %d", len(s.Entries), tt.entries)
			}
		})
	}
}

func TestReadFileNamesFile(t *testing.T) {
	dir := t.TempDir()
	b := readFixture(t, "jdk17-g1")
	path := filepath.Join(dir, "4242")
	if err := os.WriteFile(path, b[:200], 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.PID != 4242 {
		t.Errorf("got PID %d, want 4242", s.PID)
	}
	if s.Partial == nil || !strings.HasPrefix(s.Partial.Error(), "hsperf: "+path+" offset ") {
		t.Errorf("got Partial %v, want it to name %s and an offset", s.Partial, path)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("not hsperfdata, just text of some length"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), "hsperf: "+bad+" offset 0: magic") {
		t.Errorf("got error %v, want it to name %s", err, bad)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("got no error for a missing file")
	}
}

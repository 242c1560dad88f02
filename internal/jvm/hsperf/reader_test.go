package hsperf

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// sameEntries compares two parses entry by entry (names, types, values).
func sameEntries(t *testing.T, what string, got, want *Snapshot) {
	t.Helper()
	if got.Prologue != want.Prologue || len(got.Entries) != len(want.Entries) || (got.Partial == nil) != (want.Partial == nil) {
		t.Fatalf("%s: prologue %+v, %d entries, partial %v; want %+v, %d, %v", what, got.Prologue, len(got.Entries), got.Partial,
			want.Prologue, len(want.Entries), want.Partial)
	}
	for i := range want.Entries {
		if !reflect.DeepEqual(got.Entries[i], want.Entries[i]) {
			t.Fatalf("%s: entry %d is %+v, want %+v", what, i, got.Entries[i], want.Entries[i])
		}
	}
}

// readTwice writes first, reads it with r, writes second and reads it
// again: the second read must equal a fresh parse of second. It returns
// whether the Reader kept its parse (values refreshed in place).
func readTwice(t *testing.T, path string, first, second []byte) bool {
	t.Helper()
	r := NewReader(path)
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	s1, err1 := r.Read()
	if err := os.WriteFile(path, second, 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := r.Read()
	want, werr := ReadFile(path)
	if (err == nil) != (werr == nil) {
		t.Fatalf("Reader: %v, ReadFile: %v", err, werr)
	}
	if err != nil {
		return false
	}
	sameEntries(t, "second read", s2, want)
	if s2.PID != want.PID {
		t.Errorf("pid %d, want %d", s2.PID, want.PID)
	}
	return err1 == nil && s1 == s2
}

// TestReader: reading a buffer again refreshes its values in place while
// its layout stands, and parses it anew when the JVM changed the layout or
// the file; every read equals ReadFile's.
func TestReader(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			b := readFixture(t, name)
			s, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "4242")
			long, text := -1, -1
			for i := range s.Entries {
				switch e := &s.Entries[i]; {
				case long < 0 && e.IsLong() && e.Variability == 3:
					long = i
				case text < 0 && e.IsText() && len(e.Text) > 3:
					text = i
				}
			}
			if long < 0 || text < 0 {
				t.Fatalf("fixture has no variable long or text entry")
			}
			// A counter moves and a string changes: same layout, new values.
			moved := append([]byte(nil), b...)
			le := s.Entries[long]
			s.ByteOrder.PutUint64(moved[le.data:], uint64(le.Long+12345))
			te := s.Entries[text]
			moved[te.data] ^= 0x20
			if !readTwice(t, path, b, moved) {
				t.Errorf("values moved within the same layout: the Reader parsed again")
			}
			// The JVM changed its entries: the prologue's modification
			// stamp (offset 16) moves.
			restamped := append([]byte(nil), b...)
			s.ByteOrder.PutUint64(restamped[16:], uint64(s.ModTimeStamp+1))
			if readTwice(t, path, b, restamped) {
				t.Errorf("the modification stamp moved: the Reader kept its old parse")
			}
			// The file cut short, and a file that is not a buffer.
			readTwice(t, path, b, b[:len(b)/2])
			readTwice(t, path, b, []byte("not hsperfdata"))
		})
	}
}

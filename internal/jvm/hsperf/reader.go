package hsperf

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/rawfile"
)

// Reader reads one JVM's hsperfdata file again and again, as an agent does
// every few seconds. The entries' layout — names, types, offsets — is
// parsed once and again only when the JVM changes it (adds entries: its
// prologue's entry count, used size or modification stamp move); in
// between a read refreshes the values in place, into the same buffer, so
// that sampling fifty JVMs parses no names and allocates almost nothing.
// A Reader is not safe for concurrent use.
type Reader struct {
	path string
	pid  int
	file *rawfile.File // kept open between reads: Close releases it
	buf  []byte
	snap *Snapshot // the last complete parse; nil before it
	// layout is the buffer snap was parsed from: its entries' headers and
	// names must read the same for a refresh to stand for a parse.
	layout []byte
}

// NewReader returns a Reader of the file at path (see ReadFile for PID).
func NewReader(path string) *Reader {
	// Bounded and never through a link: the file found may be replaced
	// between two reads by one its directory's owner puts there.
	r := &Reader{path: path, file: rawfile.NewLimited(path, MaxFileSize)}
	if pid, err := strconv.Atoi(filepath.Base(path)); err == nil {
		r.pid = pid
	}
	return r
}

// Path is the file the Reader reads.
func (r *Reader) Path() string { return r.path }

// Read reads the file and returns its counters, as ReadFile does. The
// Snapshot returned is the Reader's own: the next Read changes it.
func (r *Reader) Read() (*Snapshot, error) {
	if err := r.fill(); err != nil {
		return nil, fmt.Errorf("hsperf: %w", err)
	}
	b := r.buf
	p, err := parsePrologue(b)
	if err != nil {
		r.snap = nil
		return nil, nameFile(err, r.path)
	}
	if s := r.snap; s != nil && sameLayout(s.Prologue, p) && s.refresh(b, r.layout) {
		s.Prologue = p
		return s, nil
	}
	s, err := Parse(b)
	if err != nil {
		r.snap = nil
		return nil, nameFile(err, r.path)
	}
	s.Partial = nameFile(s.Partial, r.path)
	s.PID = r.pid
	r.snap = nil
	if s.Partial == nil { // a partial chain is parsed again next time
		r.snap, r.layout = s, append(r.layout[:0], b[:min(s.Used, len(b))]...)
	}
	return s, nil
}

// fill reads the whole file into r.buf, reusing it.
func (r *Reader) fill() error {
	b, err := r.file.Read(r.buf)
	r.buf = b
	return err
}

// Close closes the file the Reader keeps open; a later Read opens it again.
func (r *Reader) Close() { r.file.Close() }

// sameLayout tells whether two prologues describe the same entries.
func sameLayout(a, b Prologue) bool {
	return a.ByteOrder == b.ByteOrder && a.NumEntries == b.NumEntries && a.Used == b.Used &&
		a.EntryOffset == b.EntryOffset && a.ModTimeStamp == b.ModTimeStamp
}

// refresh reads every entry's value again from b, whose prologue declares
// the layout s was parsed from (layout, the bytes of that parse); false
// when b is too short for it or any byte but the values differs from
// layout — a header or name changed under an unchanged prologue —, and
// the caller then parses b anew.
func (s *Snapshot) refresh(b, layout []byte) bool {
	if len(b) < len(layout) {
		return false
	}
	bo := s.ByteOrder
	for i := range s.Entries {
		e := &s.Entries[i]
		end := len(layout)
		if i+1 < len(s.Entries) {
			end = s.Entries[i+1].Offset
		}
		if e.data+e.size > end || string(b[e.Offset:e.data]) != string(layout[e.Offset:e.data]) ||
			string(b[e.data+e.size:end]) != string(layout[e.data+e.size:end]) {
			return false
		}
		v := b[e.data : e.data+e.size]
		switch {
		case e.IsLong():
			e.Long = int64(bo.Uint64(v))
		case e.IsText():
			if t, _ := cstringBytes(v); string(t) != e.Text {
				e.Text = string(t)
			}
		default:
			copy(e.Raw, v)
		}
	}
	return true
}

// cstringBytes is cstring for bytes.
func cstringBytes(b []byte) ([]byte, bool) {
	for i, c := range b {
		if c == 0 {
			return b[:i], true
		}
	}
	return b, false
}

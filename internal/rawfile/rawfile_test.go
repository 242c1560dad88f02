package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRead: files of every size read whole into a reused buffer (grown
// past its capacity as needed), /proc files too; a missing file is
// fs.ErrNotExist with its path, and a directory an error.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	var buf []byte
	for _, n := range []int{0, 1, 4095, 4096, 4097, 100_000} {
		want := bytes.Repeat([]byte{'x', 0, 'y'}, n/3+1)[:n]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Read(p, buf)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: read %d, %v", n, len(got), err)
		}
		buf = got
	}
	self, err := Read("/proc/self/stat", buf)
	if err != nil || !bytes.Contains(self, []byte(")")) {
		t.Errorf("/proc/self/stat: %q, %v", self, err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), nil); !errors.Is(err, fs.ErrNotExist) || !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	} else if want := filepath.Join(dir, "missing"); !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("error %v does not name %s", err, want)
	}
	if _, err := Read(dir, nil); err == nil {
		t.Errorf("a directory read without error")
	}
}

func BenchmarkRead(b *testing.B) {
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		var err error
		if buf, err = Read("/proc/self/stat", buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOSReadFile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := os.ReadFile("/proc/self/stat"); err != nil {
			b.Fatal(err)
		}
	}
}

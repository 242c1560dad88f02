package eventlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

func TestRotation(t *testing.T) {
	l, got, r, err := readLog(t, filepath.Join("testdata", "rotation"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range l.Parts {
		names = append(names, filepath.Base(p.Path)+":"+string(p.Codec))
	}
	want := "eventlog-2023-11-14--22-13.gz:gzip eventlog-2023-11-14--23-00.gz:gzip eventlog:none"
	if strings.Join(names, " ") != want || l.Rolling || l.Codec != codec.None || l.Name != "rotation" {
		t.Errorf("got parts %v, Rolling %v, Codec %s, Name %s; want %s, false, none, rotation", names, l.Rolling, l.Codec, l.Name, want)
	}
	if wantBytes := readFile(t, filepath.Join("testdata", "rotation.jsonl")); !bytes.Equal(got, wantBytes) {
		t.Errorf("got\n%s\nwant\n%s", got, wantBytes)
	}
	if r.Truncated() {
		t.Error("Truncated: got true, want false")
	}
}

// TestTestdataDirectory opens the fixture directory as a directory of logs.
func TestTestdataDirectory(t *testing.T) {
	var skipped []string
	logs, err := Open(t.Context(), "testdata", OpenOptions{Skipped: func(p string, _ error) { skipped = append(skipped, filepath.Base(p)) }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range logs {
		got = append(got, l.Name)
	}
	// compact/ holds a rolling dir one level down, so it is not a log
	// itself; the .jsonl files (the expected bytes of two tests) are
	// JSON-lines logs.
	if strings.Join(got, " ") != "app-bomb.zstd compact.jsonl rotation rotation.jsonl" || strings.Join(skipped, " ") != "README.md compact" {
		t.Errorf("got logs %v, skipped %v", got, skipped)
	}
}

func TestRotationTime(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"eventlog-2023-11-14--22-13.gz", true},
		{"eventlog-2023-11-14--22-13", true},
		{"eventlog-2023-11-14--22-13.zstd", false},
		{"eventlog-2023-13-14--22-13.gz", false},
		{"eventlog", false},
		{"eventlog-", false},
	}
	for _, tt := range tests {
		if _, ok := rotationTime(tt.name); ok != tt.ok {
			t.Errorf("rotationTime(%q): ok %v, want %v", tt.name, ok, tt.ok)
		}
	}
}

// TestEventlogFileAmongLogs: a directory of logs that holds a file named
// eventlog is not a rotation.
func TestEventlogFileAmongLogs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"app-1", "eventlog", "eventlog-2023-11-14--22-13.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logs, err := Open(t.Context(), dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range logs {
		got = append(got, l.Name)
	}
	if want := "app-1 eventlog eventlog-2023-11-14--22-13.gz"; strings.Join(got, " ") != want {
		t.Errorf("got logs %v, want %s", got, want)
	}
}

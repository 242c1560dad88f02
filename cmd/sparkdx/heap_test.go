package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update (-update) is declared in cli_test.go.

const syntheticDump = "../../internal/jvm/hprof/testdata/synthetic.hprof"

func runHeapCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHeapText(t *testing.T) {
	code, out, errOut := runHeapCLI(t, "heap", syntheticDump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden := filepath.Join("testdata", "heap_synthetic.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("text output differs from %s (go test -update to refresh):\ngot:\n%s\nwant:\n%s", golden, out, want)
	}
}

type heapOut struct {
	Schema string `json:"schema"`
	Dump   struct {
		Path        string `json:"path"`
		Truncated   bool   `json:"truncated"`
		TruncatedAt int64  `json:"truncatedAt"`
	} `json:"dump"`
	Baseline *struct {
		Path string `json:"path"`
	} `json:"baseline"`
	Classes []struct {
		Class     string `json:"class"`
		Instances int64  `json:"instances"`
		Bytes     int64  `json:"bytes"`
	} `json:"classes"`
	Spark []struct {
		Class  string `json:"class"`
		Recipe string `json:"recipe"`
	} `json:"spark"`
	Growth []struct {
		Class      string `json:"class"`
		BytesDelta int64  `json:"bytesDelta"`
	} `json:"growth"`
}

func decodeHeap(t *testing.T, s string) heapOut {
	t.Helper()
	var h heapOut
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, s)
	}
	return h
}

func TestHeapJSON(t *testing.T) {
	code, out, errOut := runHeapCLI(t, "heap", "--format", "json", syntheticDump)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	h := decodeHeap(t, out)
	if h.Schema != "sparkdx.heap/v1" {
		t.Errorf("schema: got %q", h.Schema)
	}
	want := map[string][2]int64{"Foo$Bar": {3, 96}, "java.lang.String": {4, 96}, "[B": {4, 96}}
	got := map[string][2]int64{}
	for _, c := range h.Classes {
		got[c.Class] = [2]int64{c.Instances, c.Bytes}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %v, want %v", name, got[name], w)
		}
	}
	if h.Dump.Truncated {
		t.Errorf("got truncated, want complete")
	}
	if len(h.Spark) != 1 || !strings.HasPrefix(h.Spark[0].Recipe, "docs/recipes/troubleshoot/heap-dump-notes.md#") {
		t.Errorf("spark notes: got %+v", h.Spark)
	}
	for _, n := range h.Spark {
		recipe := strings.SplitN(n.Recipe, "#", 2)
		if _, err := os.Stat(filepath.Join("..", "..", recipe[0])); err != nil {
			t.Errorf("recipe %s: %v", n.Recipe, err)
		}
	}
}

func TestHeapTruncatedAndBaseline(t *testing.T) {
	full, err := os.ReadFile(syntheticDump)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.hprof")
	n := len(full) - 60
	if err := os.WriteFile(cut, full[:n], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runHeapCLI(t, "heap", "--format", "json", cut)
	if code != 0 {
		t.Fatalf("truncated dump: exit %d, want 0: %s", code, errOut)
	}
	if !strings.Contains(errOut, "warning") || !strings.Contains(errOut, "truncated at byte") {
		t.Errorf("stderr %q lacks the truncation warning", errOut)
	}
	h := decodeHeap(t, out)
	if !h.Dump.Truncated || h.Dump.TruncatedAt != int64(n) {
		t.Errorf("got truncated=%v at %d, want true at %d", h.Dump.Truncated, h.Dump.TruncatedAt, n)
	}
	// Before, after: the order sparkdx diff takes.
	code, out, errOut = runHeapCLI(t, "heap", "--format", "json", cut, syntheticDump)
	if code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, errOut)
	}
	h = decodeHeap(t, out)
	if h.Dump.Path != syntheticDump || h.Baseline == nil || h.Baseline.Path != cut {
		t.Errorf("dump %q, baseline %+v; want the second argument the dump, the first its baseline", h.Dump.Path, h.Baseline)
	}
	if len(h.Growth) == 0 || h.Growth[0].BytesDelta <= 0 {
		t.Errorf("growth against the cut baseline: got %+v, want positive growth first", h.Growth)
	}
	// Dumps whose headers say the first argument is the newer are taken
	// newest first (the order before heap matched diff's), with a note.
	older, newer := filepath.Join(t.TempDir(), "older.hprof"), filepath.Join(t.TempDir(), "newer.hprof")
	writeDumpAt(t, older, full, 1_700_000_000_000)
	writeDumpAt(t, newer, full[:n], 1_700_000_600_000)
	code, out, errOut = runHeapCLI(t, "heap", "--format", "json", newer, older)
	if code != 0 {
		t.Fatalf("newest first: exit %d: %s", code, errOut)
	}
	h = decodeHeap(t, out)
	if h.Dump.Path != newer || h.Baseline == nil || h.Baseline.Path != older || !strings.Contains(errOut, "written after") {
		t.Errorf("newest first: dump %q, baseline %+v, stderr %q; want the newer dump compared against the older, with a note", h.Dump.Path, h.Baseline, errOut)
	}
}

func TestHeapBadInput(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage.hprof")
	if err := os.WriteFile(garbage, []byte("this is not a heap dump, just text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"garbage", []string{"heap", garbage}, 2, "offset 0: not an HPROF dump"},
		{"missing file", []string{"heap", filepath.Join(t.TempDir(), "nope.hprof")}, 2, "no such file"},
		{"no dump", []string{"heap"}, 2, "usage"},
		{"bad format", []string{"heap", "--format", "xml", syntheticDump}, 2, "--format"},
		{"bad layout flag", []string{"heap", "--compressed-oops", "maybe", syntheticDump}, 2, "--compressed-oops"},
		{"three dumps", []string{"heap", syntheticDump, syntheticDump, syntheticDump}, 2, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runHeapCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("got exit %d stderr %q, want exit %d with %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestHeapTopZeroShowsAll: --top 0 means all, for the largest objects too
// (it used to show one), and --top 1 shows one.
func TestHeapTopZeroShowsAll(t *testing.T) {
	count := func(out string) int {
		_, rest, ok := strings.Cut(out, "\nlargest objects:\n")
		if !ok {
			t.Fatalf("no largest objects section:\n%s", out)
		}
		n := 0
		for _, line := range strings.Split(rest, "\n")[1:] { // after the header
			if !strings.HasPrefix(line, "  ") {
				break
			}
			n++
		}
		return n
	}
	_, all, _ := runHeapCLI(t, "heap", "--top", "0", syntheticDump)
	_, one, _ := runHeapCLI(t, "heap", "--top", "1", syntheticDump)
	if got := count(one); got != 1 {
		t.Errorf("--top 1: %d largest objects, want 1", got)
	}
	if got := count(all); got < 2 {
		t.Errorf("--top 0: %d largest objects, want all of them (more than one)", got)
	}
}

// writeDumpAt writes dump with its header's time (the u8 after the
// version and identifier size) set to ms.
func writeDumpAt(t *testing.T, path string, dump []byte, ms uint64) {
	t.Helper()
	b := append([]byte(nil), dump...)
	binary.BigEndian.PutUint64(b[23:31], ms)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

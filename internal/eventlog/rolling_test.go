package eventlog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRollingCompressed reads the shared rolling-zstd and rolling-lz4 logs:
// three parts each, decoding to exactly the plain log.
func TestRollingCompressed(t *testing.T) {
	want := readFile(t, sparktest.Path(t, "spark-events", "app-20200706201101-0003"))
	for _, c := range []codec.Codec{codec.ZSTD, codec.LZ4} {
		t.Run(string(c), func(t *testing.T) {
			dir := sparktest.Path(t, "compressed", "rolling-"+string(c), "eventlog_v2_app-20200706201101-0003")
			l, got, r, err := readLog(t, dir, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !l.Rolling || l.InProgress || l.Codec != c || len(l.Parts) != 3 {
				t.Errorf("Rolling %v, InProgress %v, Codec %s, %d parts; want true, false, %s, 3", l.Rolling, l.InProgress, l.Codec, len(l.Parts), c)
			}
			for i, p := range l.Parts {
				if p.Index != i+1 || !strings.HasPrefix(filepath.Base(p.Path), "events_") || p.Codec != c || p.Compact {
					t.Errorf("part %d: %+v", i, p)
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got %d bytes, want the %d of the plain log", len(got), len(want))
			}
			if r.Truncated() || l.Size != r.StoredBytes() {
				t.Errorf("Truncated %v, StoredBytes %d; want false, %d", r.Truncated(), r.StoredBytes(), l.Size)
			}
		})
	}
}

// TestRollingSharedV2 reads the History Server test's rolling log, whose
// Hadoop .crc side file must be ignored.
func TestRollingSharedV2(t *testing.T) {
	dir := sparktest.Path(t, "spark-events", "eventlog_v2_local-1766844910796")
	l, got, _, err := readLog(t, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Parts) != 1 || filepath.Base(l.Parts[0].Path) != "events_1_local-1766844910796" || l.InProgress {
		t.Fatalf("got parts %+v, InProgress %v; want events_1 only, finished", l.Parts, l.InProgress)
	}
	if want := readFile(t, l.Parts[0].Path); !bytes.Equal(got, want) {
		t.Errorf("got %d bytes, want %d", len(got), len(want))
	}
}

// TestRollingCompact reads the compacted fixture: from the newest .compact
// file on, mixed codecs, in progress.
func TestRollingCompact(t *testing.T) {
	l, got, _, err := readLog(t, filepath.Join("testdata", "compact", "eventlog_v2_app-compact"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range l.Parts {
		names = append(names, filepath.Base(p.Path))
	}
	wantNames := "events_2_app-compact.zstd.compact events_3_app-compact.zstd events_4_app-compact"
	if strings.Join(names, " ") != wantNames || !l.Parts[0].Compact || !l.InProgress || l.Codec != codec.None {
		t.Errorf("got parts %v (compact %v), InProgress %v, Codec %s; want %s, compact first, in progress, none",
			names, l.Parts[0].Compact, l.InProgress, l.Codec, wantNames)
	}
	if want := readFile(t, filepath.Join("testdata", "compact.jsonl")); !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRollingErrors(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"gap", []string{"events_1_a", "events_3_a", "appstatus_a"}, "missing event log file 2 (found 1,3)"},
		{"gap after compact", []string{"events_1_a", "events_2_a.compact", "events_4_a", "appstatus_a"}, "missing event log file 3 (found 2,4)"},
		{"no events", []string{"appstatus_a.inprogress"}, "rolling log without events_ files"},
		{"bad index", []string{"events_x_a", "appstatus_a"}, `index "x" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "eventlog_v2_a")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Open(context.Background(), dir, OpenOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("got error %v, want one naming %s and saying %q", err, dir, tt.want)
			}
		})
	}
}

// TestRollingInProgressCut: the last part of a running rolling app may be
// cut inside a block; earlier parts may not.
func TestRollingInProgressCut(t *testing.T) {
	src := sparktest.Path(t, "compressed", "rolling-lz4", "eventlog_v2_app-20200706201101-0003")
	plain := readFile(t, sparktest.Path(t, "spark-events", "app-20200706201101-0003"))
	for _, cutPart := range []int{3, 2} {
		dir := filepath.Join(t.TempDir(), "eventlog_v2_app-20200706201101-0003")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 3; i++ {
			name := "events_" + string(rune('0'+i)) + "_app-20200706201101-0003.lz4"
			b := readFile(t, filepath.Join(src, name))
			if i == cutPart {
				b = b[:len(b)/2]
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "appstatus_app-20200706201101-0003.inprogress"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		_, got, r, err := readLog(t, dir, OpenOptions{})
		if cutPart == 3 && (err != nil || r.Cut() == nil || !r.Truncated() || !bytes.HasPrefix(plain, got)) {
			t.Errorf("last part cut: error %v, Cut %v, %d bytes; want no error, a cut, a prefix", err, r.Cut(), len(got))
		}
		if cutPart == 2 && (err == nil || !strings.Contains(err.Error(), "events_2_")) {
			t.Errorf("middle part cut: error %v, want one naming events_2_", err)
		}
	}
}

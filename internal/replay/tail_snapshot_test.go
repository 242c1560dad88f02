package replay_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestTailSnapshotResumes replays every single-file log of Spark's test
// suite twice in the same random pieces: once in one Tail, once through a
// chain of Tails each restored from the previous one's snapshot at a
// random point. Both must end with the same attempt, compared field by
// field including the replay's unexported indexes, and the same counts.
func TestTailSnapshotResumes(t *testing.T) {
	dir := sparktest.Path(t, "spark-events")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range entries {
		if de.IsDir() {
			continue
		}
		name := de.Name()
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			for _, seed := range []uint64{1, 2} {
				rng := rand.New(rand.NewPCG(seed, 7))
				opts := replay.Options{Name: name}
				ref, tl := replay.NewTail(opts), replay.NewTail(opts)
				restores := 0
				for rest := data; len(rest) > 0; {
					n := min(len(rest), 1+rng.IntN(len(data)/20+64))
					feed(t, ref, rest[:n])
					feed(t, tl, rest[:n])
					rest = rest[n:]
					if rng.IntN(3) > 0 {
						continue
					}
					tl = restore(t, tl, opts)
					restores++
					if !reflect.DeepEqual(tl.Attempt(), ref.Attempt()) {
						t.Fatalf("seed %d: right after restore %d, the attempt differs", seed, restores)
					}
				}
				tl = restore(t, tl, opts) // a snapshot of the whole log, cut line held back
				for _, x := range []*replay.Tail{ref, tl} {
					if err := x.Apply(x.End()); err != nil {
						t.Fatal(err)
					}
				}
				if !reflect.DeepEqual(tl.Attempt(), ref.Attempt()) {
					t.Errorf("seed %d: after %d restores the attempt differs from one tail's", seed, restores)
				}
				if got, want := statsText(tl.Stats()), statsText(ref.Stats()); !reflect.DeepEqual(got, want) {
					t.Errorf("seed %d: stats\n got %+v\nwant %+v", seed, got, want)
				}
				if restores == 0 || ref.Stats().Events == 0 {
					t.Errorf("seed %d: %d restores, %d events: the test tested nothing", seed, restores, ref.Stats().Events)
				}
			}
		})
	}
}

func feed(t *testing.T, tl *replay.Tail, b []byte) {
	t.Helper()
	if err := tl.Apply(tl.Decode(b)); err != nil {
		t.Fatal(err)
	}
}

func restore(t testing.TB, tl *replay.Tail, opts replay.Options) *replay.Tail {
	t.Helper()
	snap, err := tl.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	next, err := replay.RestoreTail(opts, snap)
	if err != nil {
		t.Fatal(err)
	}
	if next.Pending() != tl.Pending() {
		t.Fatalf("restored tail holds %d bytes back, want %d", next.Pending(), tl.Pending())
	}
	return next
}

// statsText is Stats with errors as text (a restored error is the
// same message, not the same value).
func statsText(st *replay.Stats) any {
	c := *st
	var bad []string
	for _, e := range c.FirstBad {
		bad = append(bad, e.Error())
	}
	c.FirstBad = nil
	return []any{c, bad}
}

// TestTailSnapshotKeepsBadLines: a malformed line counted before the
// snapshot, and a malformed last line that End turns into the log's cut
// line after it, come out as in one tail.
func TestTailSnapshotKeepsBadLines(t *testing.T) {
	opts := replay.Options{Name: "bad.inprogress"}
	lines := []string{
		`{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-1","Timestamp":1000,"User":"u"}`,
		`{"Event":"SparkListenerJobStart","Job ID":`,
		`{"Event":"SparkListenerApplicationEnd","Timestamp":2000}`,
		`{"Event":"SparkListenerJobStart","Job`,
	}
	var data []byte
	for _, l := range lines {
		data = append(data, l+"\n"...)
	}
	ref := replay.NewTail(opts)
	feed(t, ref, data)
	if err := ref.Apply(ref.End()); err != nil {
		t.Fatal(err)
	}
	for cut := range len(data) {
		tl := replay.NewTail(opts)
		feed(t, tl, data[:cut])
		tl = restore(t, tl, opts)
		feed(t, tl, data[cut:])
		if err := tl.Apply(tl.End()); err != nil {
			t.Fatal(err)
		}
		if got, want := statsText(tl.Stats()), statsText(ref.Stats()); !reflect.DeepEqual(got, want) {
			t.Fatalf("cut %d: stats\n got %+v\nwant %+v", cut, got, want)
		}
	}
	if st := ref.Stats(); st.BadLines != 1 || !st.Truncated {
		t.Errorf("reference: %d bad lines, truncated %v; want 1, true", st.BadLines, st.Truncated)
	}
}

func TestRestoreTailRejectsGarbage(t *testing.T) {
	opts := replay.Options{Name: "x"}
	tl := replay.NewTail(opts)
	feed(t, tl, []byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`+"\n"))
	snap, err := tl.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, []byte("garbage"), snap[:len(snap)/2], append(snap[:len(snap):len(snap)], 1)} {
		if _, err := replay.RestoreTail(opts, bad); err == nil {
			t.Errorf("RestoreTail(%d bytes of garbage): no error", len(bad))
		}
	}
	damaged := bytes.Clone(snap)
	damaged[len(snap)/2] ^= 0x40
	if _, err := replay.RestoreTail(opts, damaged); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("damaged snapshot: got %v, want a checksum error", err)
	}
	other := withSum(snap[:len(snap)-4])
	other[10] ^= 0xff // the fingerprint: as if written by another version
	other = withSum(other[:len(other)-4])
	if _, err := replay.RestoreTail(opts, other); !errors.Is(err, replay.ErrSnapshotVersion) {
		t.Errorf("changed fingerprint: got %v, want ErrSnapshotVersion", err)
	}
}

// BenchmarkTailSnapshot encodes the replay state of the big log (12,987
// tasks), what serve stores for a running log of that size.
func BenchmarkTailSnapshot(b *testing.B) {
	tl := bigTail(b)
	snap, err := tl.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	b.ReportMetric(float64(len(snap)), "snapshot-bytes")
	for range b.N {
		if _, err := tl.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestoreTail decodes it again, what a restart costs per log.
func BenchmarkRestoreTail(b *testing.B) {
	snap, err := bigTail(b).Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	for range b.N {
		if _, err := replay.RestoreTail(replay.Options{Name: "big"}, snap); err != nil {
			b.Fatal(err)
		}
	}
}

func bigTail(b *testing.B) *replay.Tail {
	path := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	rd, err := logs[0].NewReader(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		b.Fatal(err)
	}
	// Stop before the end, as a running log would be.
	data = data[:bytes.LastIndexByte(data[:len(data)*9/10], '\n')+1]
	tl := replay.NewTail(replay.Options{Name: "big"})
	if err := tl.Apply(tl.Decode(data)); err != nil {
		b.Fatal(err)
	}
	return tl
}

// withSum is body with a snapshot's CRC-32C trailer.
func withSum(body []byte) []byte {
	return binary.LittleEndian.AppendUint32(bytes.Clone(body), crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
}

// FuzzRestoreTail: whatever bytes a store hands back as a snapshot (with
// a right checksum), RestoreTail refuses them or gives a tail that replays
// the rest of a real log without panicking.
func FuzzRestoreTail(f *testing.F) {
	data, err := os.ReadFile(sparktest.Path(f, "spark-events", "local-1430917381534"))
	if err != nil {
		f.Fatal(err)
	}
	cut := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
	opts := replay.Options{Name: "fuzz"}
	tl := replay.NewTail(opts)
	if err := tl.Apply(tl.Decode(data[:cut])); err != nil {
		f.Fatal(err)
	}
	snap, err := tl.Snapshot()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(snap)
	small := replay.NewTail(opts)
	small.Apply(small.Decode(data[:bytes.IndexByte(data[2000:], '\n')+2001]))
	if s, err := small.Snapshot(); err == nil {
		f.Add(s)
	}
	rest := data[cut:]
	f.Fuzz(func(t *testing.T, snap []byte) {
		if len(snap) < 4 {
			return
		}
		// Past the checksum, to reach the decoding of what it covers.
		tl, err := replay.RestoreTail(opts, withSum(snap[:len(snap)-4]))
		if err != nil {
			return
		}
		if err := tl.Apply(tl.Decode(bytes.Clone(rest))); err != nil {
			t.Fatal(err)
		}
		if err := tl.Apply(tl.End()); err != nil {
			t.Fatal(err)
		}
	})
}

package hprof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestSpillRoundTrip: arrays (loaded, mapped or read backward) and id
// streams read back as written, across buffer boundaries, and a read past the end fails naming the file's
// subject and offset.
func TestSpillRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 5, spillBuf/4 - 1, spillBuf / 4, spillBuf/4 + 3, 3*spillBuf/8 + 11} {
		tmp := &tempFiles{dir: t.TempDir()}
		a := make([]uint32, n)
		ids := make([]uint64, n)
		for i := range a {
			a[i] = rng.Uint32()
			ids[i] = rng.Uint64()
		}
		u, err := tmp.spillU32("test array", a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := u.load()
		if err != nil || !slices.Equal(got, a) {
			t.Fatalf("%d values: load: %v, equal %v", n, err, slices.Equal(got, a))
		}
		if got, err := u.view(); err != nil || !slices.Equal(got, a) {
			t.Fatalf("%d values: view: %v, equal %v", n, err, slices.Equal(got, a))
		}
		back32 := u.backward()
		var rev []uint32 // pieces taken from the end, in array order each
		for len(rev) < n {
			piece, err := back32.prev(1 + rng.IntN(n-len(rev)))
			if err != nil {
				t.Fatalf("%d values backward: after %d: %v", n, len(rev), err)
			}
			rev = append(slices.Clone(piece), rev...)
		}
		if !slices.Equal(rev, a) {
			t.Fatalf("%d values: read backward differently", n)
		}
		if _, err := back32.prev(1); !errors.Is(err, io.EOF) {
			t.Errorf("%d values: read backward past the start: got %v, want EOF", n, err)
		}
		u64, err := tmp.spillU64("test ids", ids)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := u64.load(); err != nil || !slices.Equal(got, ids) {
			t.Fatalf("%d ids: load: %v, equal %v", n, err, slices.Equal(got, ids))
		}
		if got, err := u64.view(); err != nil || !slices.Equal(got, ids) {
			t.Fatalf("%d ids: view: %v, equal %v", n, err, slices.Equal(got, ids))
		}
		w, err := tmp.idWriter("test ids")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			w.put(id)
		}
		f, err := w.finish()
		if err != nil {
			t.Fatal(err)
		}
		r := f.reader()
		var back []uint64
		for len(back) < n {
			chunk, err := r.next(1 + rng.IntN(n-len(back)))
			if err != nil {
				t.Fatalf("%d ids: after %d: %v", n, len(back), err)
			}
			back = append(back, chunk...)
		}
		if !slices.Equal(back, ids) {
			t.Fatalf("%d ids: read back differently", n)
		}
		if _, err := r.next(1); !errors.Is(err, io.EOF) || err.Error() != fmt.Sprintf("test ids: temporary file offset %d: EOF", 8*n) {
			t.Errorf("%d ids: read past the end: got %v, want EOF at offset %d", n, err, 8*n)
		}
		tmp.close()
	}
}

// TestTempFilesLeftNone: an analysis leaves no temporary file behind,
// whether it succeeds, fails on a cut dump or is cancelled.
func TestTempFilesLeftNone(t *testing.T) {
	dump := buildRetentionDump(8, false)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name    string
		ctx     context.Context
		dump    []byte
		wantErr bool
	}{
		{"success", context.Background(), dump, false},
		{"cut dump", context.Background(), dump[:len(dump)*2/3], true},
		{"cancelled", cancelled, dump, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := analyze(c.ctx, bytesOpener(c.dump), RetainedOptions{tempDir: dir})
			if (err != nil) != c.wantErr {
				t.Fatalf("got error %v, want one: %v", err, c.wantErr)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("left %d temporary files (%s ...)", len(left), left[0].Name())
			}
		})
	}
}

// TestTempFilesGoneWhileOpen: a temporary file is out of the directory as
// soon as it is made, so that even a killed process leaves nothing; a
// dropped one is closed at once.
func TestTempFilesGoneWhileOpen(t *testing.T) {
	dir := t.TempDir()
	tmp := &tempFiles{dir: dir}
	defer tmp.close()
	if _, err := tmp.spillU32("test", []uint32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("an open temporary file is listed: %s", left[0].Name())
	}
	u, err := tmp.spillU32("dropped", []uint32{4})
	if err != nil {
		t.Fatal(err)
	}
	tmp.drop(u.f)
	if _, err := u.load(); err == nil {
		t.Errorf("a dropped file still reads")
	}
	if len(tmp.files) != 1 {
		t.Errorf("%d files kept after a drop, want 1", len(tmp.files))
	}
}

package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(ents)
}

// TestHeld: files read through kept descriptors give what a fresh read
// gives (a /proc file larger than the first buffer too); a process that
// exits makes its held file an ENOENT error, not stale bytes; Sweep closes
// what was not read since the last one; past max, files are read without
// being kept; Close leaves no descriptor behind.
func TestHeld(t *testing.T) {
	base := openFDs(t)
	h := NewHeld(8)
	var buf []byte

	// mountinfo: several KB on any machine, and stable while the test runs.
	want, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Skip(err)
	}
	for i := range 3 {
		got, err := h.Read("/proc/self/mountinfo", buf)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read %d of mountinfo (%d bytes): got %d bytes, %v", i, len(want), len(got), err)
		}
		buf = got
	}
	if h.Open() != 1 {
		t.Errorf("after three reads of one file: %d held, want 1", h.Open())
	}

	// A child's stat while it runs, then after it exits.
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	stat := "/proc/" + strconv.Itoa(sleep.Process.Pid) + "/stat"
	b, err := h.Read(stat, buf)
	if err != nil || !bytes.Contains(b, []byte("(sleep)")) {
		t.Fatalf("stat of a running sleep: %q, %v", b, err)
	}
	buf = b
	b, err = h.Read(stat, buf)
	if err != nil || !bytes.Contains(b, []byte("(sleep)")) {
		t.Fatalf("stat of a running sleep, read again: %q, %v", b, err)
	}
	sleep.Process.Kill()
	sleep.Wait()
	if b, err := h.Read(stat, buf); err == nil || !errorsIsNotExist(err) {
		t.Errorf("stat of an exited process: got %q, %v; want a not-exist error", b, err)
	}
	if h.Open() != 1 {
		t.Errorf("after the exit: %d held, want mountinfo alone", h.Open())
	}

	// Sweep: read self/stat and mountinfo, sweep, read mountinfo only, sweep.
	h.Read("/proc/self/stat", buf)
	h.Sweep()
	if h.Open() != 2 {
		t.Errorf("after a sweep of two files read: %d held, want 2", h.Open())
	}
	h.Read("/proc/self/mountinfo", buf)
	h.Sweep()
	if h.Open() != 1 {
		t.Errorf("after a sweep with one file not read: %d held, want 1", h.Open())
	}
	h.Close()
	if n := openFDs(t); n != base {
		t.Errorf("after Close: %d descriptors open, %d before", n, base)
	}

	// Past max: read as Read does, nothing more kept.
	small := NewHeld(1)
	defer small.Close()
	small.Read("/proc/self/mountinfo", buf)
	got, err := small.Read("/proc/self/stat", buf)
	if err != nil || !bytes.Contains(got, []byte(strconv.Itoa(os.Getpid()))) || small.Open() != 1 {
		t.Errorf("past max: %q, %v, %d held", got, err, small.Open())
	}
	if _, err := small.Read("/nonexistent/file", buf); !errorsIsNotExist(err) {
		t.Errorf("a missing file: %v, want not-exist", err)
	}
}

func errorsIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// TestFileGarbage: a File nobody closed releases its descriptor when it is
// garbage.
func TestFileGarbage(t *testing.T) {
	base := openFDs(t)
	func() {
		for range 20 {
			f := NewFile("/proc/self/stat")
			if _, err := f.Read(nil); err != nil {
				t.Fatal(err)
			}
		}
	}()
	if n := openFDs(t); n < base+20 {
		t.Fatalf("20 Files read: %d descriptors open, %d before", n, base)
	}
	for range 10 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if openFDs(t) <= base {
			return
		}
	}
	t.Errorf("after collections: %d descriptors open, %d before", openFDs(t), base)
}

// TestLimited: a bounded File reads a file up to its bound, refuses a
// larger one (a sparse file of a gigabyte: after reading max+1 bytes, not
// the gigabyte) and a symbolic link in its place.
func TestLimited(t *testing.T) {
	dir := t.TempDir()
	small := dir + "/small"
	if err := os.WriteFile(small, bytes.Repeat([]byte{1}, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := dir + "/huge"
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	link := dir + "/link"
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
		n    int
	}{
		{small, nil, 4096},
		{huge, ErrTooLarge, 0},
		{link, syscall.ELOOP, 0},
	} {
		lf := NewLimited(c.path, 1<<20)
		b, err := lf.Read(nil)
		lf.Close()
		if !errors.Is(err, c.want) || len(b) != c.n {
			t.Errorf("%s: got %d bytes, %v, want %d bytes, %v", c.path, len(b), err, c.n, c.want)
		}
		if cap(b) > 4<<20 {
			t.Errorf("%s: the buffer grew to %d bytes for a bound of 1 MiB", c.path, cap(b))
		}
	}
}

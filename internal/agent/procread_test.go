package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/prometheus/procfs"
)

// TestProcReaderAgainstProcfs: on every process of this machine, the
// fields the agent reads of stat, status, io and the fd directory are what
// procfs's own readers read; odd command names (spaces, parentheses) and
// damaged stat lines are handled.
func TestProcReaderAgainstProcfs(t *testing.T) {
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		t.Skip(err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	r := &procReader{root: "/proc"}
	n := 0
	for _, p := range procs {
		want, err := p.Stat()
		if err != nil {
			continue // gone meanwhile
		}
		got, err := r.stat(p.PID)
		if err != nil {
			continue
		}
		// CPU and memory move between the two reads; a process's identity
		// and shape do not — but for a kernel worker's name, which says
		// what it is doing ("kworker/1:2H-kblockd" idle, "+kblockd" busy).
		kernel := want.PPID == 2 || want.PID == 2
		if got.PID != want.PID || (got.Comm != want.Comm && !kernel) || got.PPID != want.PPID || got.Starttime != want.Starttime ||
			got.UTime < want.UTime || got.STime < want.STime || (got.RSS == 0) != (want.RSS == 0) {
			t.Errorf("pid %d: got %+v, procfs %+v", p.PID, got, want)
		}
		// status, io and the fd count against procfs's readers, where
		// both can read them (io and fd of other users' processes need root).
		if ws, err := p.NewStatus(); err == nil {
			gs, err := r.status(p.PID)
			if err != nil {
				continue // gone meanwhile
			}
			nspid := 0
			if len(ws.NSpids) > 1 {
				nspid = int(ws.NSpids[len(ws.NSpids)-1])
			}
			if gs.UID != int(ws.UIDs[0]) || gs.GID != int(ws.GIDs[0]) || gs.NSpid != nspid ||
				(gs.VmRSS == 0) != (ws.VmRSS == 0) || gs.VmHWM < ws.VmHWM {
				t.Errorf("pid %d status: got %+v (%v), procfs %+v", p.PID, gs, err, ws)
			}
		}
		if wio, err := p.IO(); err == nil {
			if rb, wb, err := r.io(p.PID); err == nil && (rb < wio.ReadBytes || wb < wio.WriteBytes) {
				t.Errorf("pid %d io: got %d %d, procfs %+v", p.PID, rb, wb, wio)
			}
		}
		n++
	}
	if n < 3 {
		t.Fatalf("compared %d processes", n)
	}
	// Open files of a process that opens none meanwhile: a sleep with
	// its three standard streams and two more.
	extra := []*os.File{}
	for range 2 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		extra = append(extra, f)
	}
	sleep := exec.Command("sleep", "30")
	sleep.ExtraFiles = extra
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Process.Kill()
	sp, err := fs.Proc(sleep.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sp.FileDescriptorsLen()
	if got, gerr := r.fds(sleep.Process.Pid); err != nil || gerr != nil || got < 5 || got != want {
		t.Errorf("fds of a sleep with at least 5 open files: %d (%v), procfs %d (%v)", got, gerr, want, err)
	}
	// Both ways of counting: the fd directory's size (Linux 6.2 on) and
	// its entries.
	counted, err := r.countFDs(filepath.Join("/proc", strconv.Itoa(sleep.Process.Pid), "fd"))
	if got, _ := r.fds(sleep.Process.Pid); err != nil || counted != got {
		t.Errorf("fds of the sleep: %d by the directory's size, %d (%v) by its entries", got, counted, err)
	}
	t.Logf("fd counts from the directory's size: %v", r.sizeIsCount == fdSizeYes)
	self, _ := r.stat(os.Getpid())
	if self.NumThreads < 1 || self.State == "" || self.VSize == 0 {
		t.Errorf("this process: %+v", self)
	}

	line := "42 (a (b) c) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 -5 0 20 -10 9 0 12345 1000 77 18446744073709551615\n"
	s, err := parseStat(42, []byte(line), nil)
	if err != nil || s.Comm != "a (b) c" || s.State != "S" || s.PPID != 1 || s.UTime != 7 || s.STime != 3 ||
		s.NumThreads != 9 || s.Starttime != 12345 || s.VSize != 1000 || s.RSS != 77 {
		t.Errorf("odd command: %+v, %v", s, err)
	}
	for _, bad := range []string{"", "42 no-parens S 1", "42 (x) S 1 2 3", "42 (x) S 1 2 3 4 5 6 7 8 9 10 x 12 13 14 15 16 17 18 19 20 21 22"} {
		if _, err := parseStat(42, []byte(bad), nil); err == nil {
			t.Errorf("%q: no error", bad)
		} else if !strings.Contains(err.Error(), "field") && !strings.Contains(err.Error(), "command") {
			t.Errorf("%q: error %v does not say what is wrong", bad, err)
		}
	}
}

// FuzzParseStat: any line parses or fails with a message, never panics,
// and a parsed line's command is what lies between its first '(' and its
// last ')'.
func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (a (b) c) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 -5 0 20 -10 9 0 12345 1000 77 18446744073709551615\n"))
	f.Add([]byte("1 (systemd) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 9 10 11"))
	f.Add([]byte("7 () R 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 0 0 0 0 0 0 0 0 0 0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseStat(7, b, nil)
		if err != nil {
			return
		}
		l, r := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
		if s.Comm != string(b[l+1:r]) || s.PID != 7 {
			t.Fatalf("comm %q pid %d from %q", s.Comm, s.PID, b)
		}
	})
}

// TestProcReaderPIDs: the listing of /proc is every process procfs lists
// (give or take those that came or went in between), this one included,
// and reuses its slice; the fixture's listing is its numeric directories.
func TestProcReaderPIDs(t *testing.T) {
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		t.Skip(err)
	}
	r := &procReader{root: "/proc"}
	got, err := r.pids(nil)
	if err != nil {
		t.Fatal(err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{}
	for _, p := range procs {
		want[p.PID] = true
	}
	common := 0
	for _, pid := range got {
		if want[pid] {
			common++
		}
	}
	if !slices.Contains(got, os.Getpid()) || common < len(want)*9/10 {
		t.Errorf("listed %d pids, %d of procfs's %d; this process (%d) listed: %v", len(got), common, len(want), os.Getpid(), slices.Contains(got, os.Getpid()))
	}
	again, err := r.pids(got)
	if err != nil || &again[0] != &got[0] {
		t.Errorf("a second listing did not reuse the first's slice (%v)", err)
	}
	fixture := &procReader{root: filepath.Join("testdata", "node1", "proc")}
	fp, err := fixture.pids(nil)
	slices.Sort(fp)
	if err != nil || !slices.Equal(fp, []int{1, 100, 101, 102, 103, 200, 201, 300, 301, 302, 400, 401}) {
		t.Errorf("fixture: %v, %v", fp, err)
	}
}

// TestProcReaderCommInterned: reading a process's stat again gives the same
// command string, not a new one.
func TestProcReaderCommInterned(t *testing.T) {
	r := &procReader{root: "/proc"}
	a, err := r.stat(os.Getpid())
	if err != nil {
		t.Skip(err)
	}
	b, _ := r.stat(os.Getpid())
	if a.Comm == "" || unsafe.StringData(a.Comm) != unsafe.StringData(b.Comm) {
		t.Errorf("two reads of %q made two strings", a.Comm)
	}
}

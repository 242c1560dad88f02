package agent

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/prometheus/procfs"
	"github.com/sparkdx/sparkdx/internal/rawfile"
)

// procReader reads the /proc files the agent reads of every process each
// cycle (stat, status, io, the fd directory) into one reused buffer and
// parses only the fields it uses, without fmt: procfs's Stat scans all 52
// fields with fmt.Fscan and IO with fmt.Sscanf, and with the new buffer of
// each read they were a third of a cycle on a node of 150 processes.
type procReader struct {
	root string
	buf  []byte
	// held keeps the files read every cycle (stat, io) open between
	// cycles; nil reads each through a fresh open.
	held *rawfile.Held
	// comms holds one string per command name read (comm).
	comms map[string]string
	// sizeIsCount: root is a procfs whose fd directories give their number
	// of entries as their size (Linux 6.2 and later); unknown until the
	// first fds call, then fdSizeYes or fdSizeNo.
	sizeIsCount int
}

// commsMax bounds the command names a procReader keeps one string of.
const commsMax = 4096

// comm returns the one string kept for a command name, so that reading
// the stat of every process each cycle makes no new strings: a node runs
// few distinct programs.
func (r *procReader) comm(b []byte) string {
	if c, ok := r.comms[string(b)]; ok {
		return c
	}
	c := string(b)
	if r.comms == nil {
		r.comms = map[string]string{}
	}
	if len(r.comms) < commsMax {
		r.comms[c] = c
	}
	return c
}

// heldMax bounds the /proc files kept open between cycles: a node of
// thousands of processes reads the rest with an open each.
const heldMax = 4096

// newProcReader returns a reader of the /proc tree at root that keeps the
// files it reads every cycle open (Sweep closes those of processes gone).
func newProcReader(root string) *procReader {
	return &procReader{root: root, held: rawfile.NewHeld(heldMax)}
}

// sweep ends a cycle: the files of processes not read in it are closed.
func (r *procReader) sweep() {
	if r.held != nil {
		r.held.Sweep()
	}
}

const (
	fdSizeUnknown = iota
	fdSizeYes
	fdSizeNo
)

// procSuperMagic is procfs's f_type in statfs(2).
const procSuperMagic = 0x9fa0

// read reads /proc/<pid>/<name> into the reader's buffer; the bytes are
// good until the next read.
func (r *procReader) read(pid int, name string) (path string, b []byte, err error) {
	path = filepath.Join(r.root, strconv.Itoa(pid), name)
	if r.held != nil && name != "status" {
		b, err = r.held.Read(path, r.buf)
	} else {
		b, err = rawfile.Read(path, r.buf)
	}
	if err == nil {
		r.buf = b
	}
	return path, b, err
}

// stat returns the process's state, parent, CPU ticks, threads, start and
// memory pages, as procfs.Proc.Stat would (the fields the agent reads).
func (r *procReader) stat(pid int) (procfs.ProcStat, error) {
	path, b, err := r.read(pid, "stat")
	if err != nil {
		return procfs.ProcStat{}, err
	}
	s, err := parseStat(pid, b, r.comm)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseStat parses a /proc/<pid>/stat line (proc(5)): the command in
// parentheses (which may hold spaces and parentheses itself: it ends at the
// last ')'), then space-separated fields from the state (field 3) on.
// comm makes the command's string (nil: a new string each time).
func parseStat(pid int, b []byte, comm func([]byte) string) (procfs.ProcStat, error) {
	s := procfs.ProcStat{PID: pid}
	l, r := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if l < 0 || r < l {
		return s, errors.New("no command in parentheses")
	}
	if comm != nil {
		s.Comm = comm(b[l+1 : r])
	} else {
		s.Comm = string(b[l+1 : r])
	}
	rest := b[r+1:]
	field := 2 // the last field read
	next := func() []byte {
		for len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
		i := bytes.IndexAny(rest, " \n")
		if i < 0 {
			i = len(rest)
		}
		f := rest[:i]
		rest = rest[i:]
		field++
		return f
	}
	num := func(f []byte) (uint64, error) {
		if len(f) > 1 && f[0] == '-' {
			f = f[1:] // a negative value (cutime, nice, priority): never one the agent reads
		}
		var v uint64
		for _, c := range f {
			if c < '0' || c > '9' || v > (1<<63)/10 {
				return 0, fmt.Errorf("field %d: %q is not a number", field, f)
			}
			v = v*10 + uint64(c-'0')
		}
		return v, nil
	}
	for field < 24 {
		f := next()
		if len(f) == 0 {
			return s, fmt.Errorf("%d fields, want at least 24", field-1)
		}
		if field == 3 {
			s.State = string(f)
			continue
		}
		v, err := num(f)
		if err != nil {
			return s, err
		}
		switch field {
		case 4:
			s.PPID = int(v)
		case 14:
			s.UTime = uint(v)
		case 15:
			s.STime = uint(v)
		case 20:
			s.NumThreads = int(v)
		case 22:
			s.Starttime = v
		case 23:
			s.VSize = uint(v)
		case 24:
			s.RSS = int(v)
		}
	}
	return s, nil
}

// procStatus is what the agent reads of /proc/<pid>/status.
type procStatus struct {
	UID, GID     int
	VmRSS, VmHWM uint64 // bytes
	NSpid        int    // the pid in the innermost namespace; 0 when none
}

// status reads /proc/<pid>/status: the real uid and gid, resident and
// peak resident memory, and the pid inside the process's PID namespace.
func (r *procReader) status(pid int) (procStatus, error) {
	var s procStatus
	_, b, err := r.read(pid, "status")
	if err != nil {
		return s, err
	}
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		switch string(k) {
		case "Uid", "Gid", "VmRSS", "VmHWM", "NSpid": // the others' values are not split
		default:
			continue
		}
		f := bytes.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch string(k) {
		case "Uid":
			s.UID = int(atou(f[0]))
		case "Gid":
			s.GID = int(atou(f[0]))
		case "VmRSS":
			s.VmRSS = atou(f[0]) << 10 // kB
		case "VmHWM":
			s.VmHWM = atou(f[0]) << 10
		case "NSpid":
			if len(f) > 1 {
				s.NSpid = int(atou(f[len(f)-1]))
			}
		}
	}
	return s, nil
}

// io reads /proc/<pid>/io's bytes read from and written to storage.
func (r *procReader) io(pid int) (read, write uint64, err error) {
	path, b, err := r.read(pid, "io")
	if err != nil {
		return 0, 0, err
	}
	var seen int
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		switch string(k) {
		case "read_bytes":
			read, seen = atou(bytes.TrimSpace(v)), seen+1
		case "write_bytes":
			write, seen = atou(bytes.TrimSpace(v)), seen+1
		}
	}
	if seen != 2 {
		return 0, 0, fmt.Errorf("%s: no read_bytes and write_bytes", path)
	}
	return read, write, nil
}

// fds counts the entries of /proc/<pid>/fd. Since Linux 6.2 procfs gives
// an fd directory's number of open files as its size, which the kernel
// counts from the process's fd bitmap: one stat instead of reading every
// entry (a JVM has hundreds). Elsewhere (an older kernel, a copy of /proc
// in a test) the entries are counted without building their names.
func (r *procReader) fds(pid int) (int, error) {
	path := filepath.Join(r.root, strconv.Itoa(pid), "fd")
	if r.sizeIsCount == fdSizeUnknown {
		r.sizeIsCount = fdSizeNo
		var fs syscall.Statfs_t
		if err := syscall.Statfs(r.root, &fs); err == nil && fs.Type == procSuperMagic {
			var self syscall.Stat_t
			// The agent itself has open files: a size of 0 for its own fd
			// directory is a kernel that does not count.
			if err := syscall.Stat(filepath.Join(r.root, "self", "fd"), &self); err == nil && self.Size > 0 {
				r.sizeIsCount = fdSizeYes
			}
		}
	}
	if r.sizeIsCount == fdSizeYes {
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			return 0, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		return int(st.Size), nil
	}
	return r.countFDs(path)
}

// countFDs counts the entries of an fd directory.
func (r *procReader) countFDs(path string) (int, error) {
	n := 0
	err := r.eachDirent(path, func(name []byte) {
		if string(name) != "." && string(name) != ".." {
			n++
		}
	})
	return n, err
}

// pids lists the process ids under the reader's root (the numeric entries
// of /proc) into out, reusing it and the reader's buffer: the listing of
// every cycle allocates nothing once they are large enough.
func (r *procReader) pids(out []int) ([]int, error) {
	out = out[:0]
	err := r.eachDirent(r.root, func(name []byte) {
		pid, ok := 0, len(name) > 0 && len(name) <= 10
		for _, c := range name {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			pid = pid*10 + int(c-'0')
		}
		if ok && pid > 0 {
			out = append(out, pid)
		}
	})
	return out, err
}

// eachDirent reads the directory at path with getdents(2) into the
// reader's buffer, without building names, and calls f with each entry's
// name (good during the call only). A linux_dirent64 record is d_ino (8),
// d_off (8), d_reclen (2), d_type (1), then the name, NUL-terminated.
func (r *procReader) eachDirent(path string, f func(name []byte)) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if cap(r.buf) < 32<<10 {
		r.buf = make([]byte, 32<<10)
	}
	buf := r.buf[:cap(r.buf)]
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "readdirent", Path: path, Err: err}
		}
		if n <= 0 {
			return nil
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			f(name)
			b = b[reclen:]
		}
	}
}

// atou is the decimal number b starts with (0 when none).
func atou(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + uint64(c-'0')
	}
	return v
}

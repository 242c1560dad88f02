package hsperf

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Errors FindFile wraps, for errors.Is.
var (
	// ErrNoFile: the process has no hsperfdata file where HotSpot puts it.
	ErrNoFile = errors.New("no hsperfdata file")
	// ErrPerfDataDisabled: the JVM runs with -XX:-UsePerfData or
	// -XX:+PerfDisableSharedMem, so it writes no file.
	ErrPerfDataDisabled = errors.New("perf data disabled")
	// ErrNotJVM: the process has no libjvm.so mapped.
	ErrNotJVM = errors.New("not a HotSpot JVM")
	// ErrUntrusted: the only files named after the process are not its
	// JVM's (another user's, a link, writable by others, larger than
	// HotSpot writes): files any local user can plant in /tmp.
	ErrUntrusted = errors.New("no trusted hsperfdata file")
)

// MaxFileSize is the largest hsperfdata file HotSpot writes: the upper
// bound of -XX:PerfDataMemorySize (2 MiB; 32 KiB by default), which the
// JVM rounds up to pages.
const MaxFileSize = 2 << 20

// FindFile returns the hsperfdata file of process pid as seen from the host
// whose /proc is procRoot. A JVM names its file after its pid in its own pid
// namespace and writes it under its own /tmp, so for a process in a
// container FindFile looks in <procRoot>/<pid>/root/tmp/hsperfdata_*/<nspid>,
// nspid being the innermost pid of the NSpid: line of <procRoot>/<pid>/status.
// When /proc/<pid>/root cannot be read (another user's process) and the
// process shares the host's pid namespace, it falls back to
// <host>/tmp/hsperfdata_*/<pid>, host being the parent of procRoot ("/" for
// "/proc"), which lets tests point it at a fixture tree.
//
// Only a file HotSpot could have written for this process is taken, as
// HotSpot's own checks (perfMemory_posix.cpp) take them: a regular file,
// no symbolic link, in a directory that is no link either, both owned by
// the process's user and writable by nobody else, of at most MaxFileSize
// bytes. The process's user is the owner of <procRoot>/<pid>, which the
// kernel gives the process's effective uid (a process that made itself
// non-dumpable shows root's, and then only root's files are taken).
// Other users' files under /tmp are passed over: any local user can
// create /tmp/hsperfdata_<name>/<pid> of any size.
func FindFile(procRoot string, pid int) (string, error) {
	pidDir := filepath.Join(procRoot, strconv.Itoa(pid))
	status, err := os.ReadFile(filepath.Join(pidDir, "status"))
	if err != nil {
		return "", fmt.Errorf("hsperf: pid %d: %w", pid, err)
	}
	uid, err := ownerOf(pidDir)
	if err != nil {
		return "", fmt.Errorf("hsperf: pid %d: %w", pid, err)
	}
	nspid := InnermostPID(status, pid)
	name := strconv.Itoa(nspid)
	looked := []string{filepath.Join(pidDir, "root", "tmp", "hsperfdata_*", name)}
	if nspid == pid {
		host := filepath.Dir(filepath.Clean(procRoot))
		looked = append(looked, filepath.Join(host, "tmp", "hsperfdata_*", name))
	}
	var passed []string
	for _, pattern := range looked {
		p, why := newest(pattern, uid)
		if p != "" {
			return p, nil
		}
		passed = append(passed, why...)
	}
	if flag := disabledBy(pidDir); flag != "" {
		return "", fmt.Errorf("hsperf: pid %d: %w (%s)", pid, ErrPerfDataDisabled, flag)
	}
	if NotJVM(pidDir) {
		return "", fmt.Errorf("hsperf: pid %d: %w", pid, ErrNotJVM)
	}
	if len(passed) > 0 {
		return "", fmt.Errorf("hsperf: pid %d: %w: %s", pid, ErrUntrusted, strings.Join(passed[:min(len(passed), 3)], "; "))
	}
	return "", fmt.Errorf("hsperf: pid %d: %w in %s", pid, ErrNoFile, strings.Join(looked, " or "))
}

// InnermostPID returns, from a /proc/<pid>/status, the last pid of its
// NSpid: line (the pid inside the innermost namespace), or pid when there
// is none (kernels before 4.1). The JVM names its files after that pid.
func InnermostPID(status []byte, pid int) int {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "NSpid:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return pid
		}
		if n, err := strconv.Atoi(f[len(f)-1]); err == nil && n > 0 {
			return n
		}
		return pid
	}
	return pid
}

// newest returns the most recently modified file matching pattern that
// user uid's JVM could have written (trusted): the same pid can have
// files under several directories when an old JVM died without removing
// its own. why says what was wrong with each file passed over.
func newest(pattern string, uid uint32) (best string, why []string) {
	matches, _ := filepath.Glob(pattern)
	var bestMod int64
	for _, m := range matches {
		fi, err := trusted(m, uid)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if mod := fi.ModTime().UnixNano(); best == "" || mod > bestMod {
			best, bestMod = m, mod
		}
	}
	return best, why
}

// trusted checks a candidate file and its directory as FindFile says.
func trusted(path string, uid uint32) (os.FileInfo, error) {
	dir, err := os.Lstat(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if err := owned(dir, uid, os.ModeDir); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Dir(path), err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := owned(fi, uid, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: %d bytes, more than HotSpot writes (%d)", path, fi.Size(), MaxFileSize)
	}
	return fi, nil
}

// owned checks that fi is of type typ (a directory, or 0: a regular file),
// owned by uid and writable by no one else.
func owned(fi os.FileInfo, uid uint32, typ os.FileMode) error {
	if fi.Mode().Type() != typ {
		return fmt.Errorf("a %s, not a %s", typeName(fi.Mode().Type()), typeName(typ))
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("no owner")
	}
	if st.Uid != uid {
		return fmt.Errorf("owned by uid %d, not the process's %d", st.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("writable by others (%v)", fi.Mode().Perm())
	}
	return nil
}

func typeName(t os.FileMode) string {
	switch t {
	case 0:
		return "regular file"
	case os.ModeDir:
		return "directory"
	case os.ModeSymlink:
		return "symbolic link"
	}
	return "special file (" + t.String() + ")"
}

// ownerOf is the owner of a /proc/<pid> directory: the process's
// effective uid.
func ownerOf(pidDir string) (uint32, error) {
	fi, err := os.Lstat(pidDir)
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("%s: no owner", pidDir)
	}
	return st.Uid, nil
}

// disabledBy returns the option that keeps the JVM from writing its file,
// looking at the command line and the environment variables the launcher
// reads options from.
func disabledBy(pidDir string) string {
	var sources [][]byte
	if b, err := os.ReadFile(filepath.Join(pidDir, "cmdline")); err == nil {
		sources = append(sources, b)
	}
	if b, err := os.ReadFile(filepath.Join(pidDir, "environ")); err == nil {
		for _, v := range bytes.Split(b, []byte{0}) {
			for _, env := range []string{"JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS=", "_JAVA_OPTIONS="} {
				if bytes.HasPrefix(v, []byte(env)) {
					sources = append(sources, v)
				}
			}
		}
	}
	for _, flag := range []string{"-XX:-UsePerfData", "-XX:+PerfDisableSharedMem"} {
		for _, src := range sources {
			if bytes.Contains(src, []byte(flag)) {
				return flag
			}
		}
	}
	return ""
}

// NotJVM tells whether the process under pidDir (/proc/PID) surely is no
// HotSpot JVM: its memory maps, when readable, map no libjvm.so.
func NotJVM(pidDir string) bool {
	maps, err := os.ReadFile(filepath.Join(pidDir, "maps"))
	return err == nil && !bytes.Contains(maps, []byte("/libjvm.so"))
}

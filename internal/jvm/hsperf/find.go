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
)

// FindFile returns the hsperfdata file of process pid as seen from the host
// whose /proc is procRoot. A JVM names its file after its pid in its own pid
// namespace and writes it under its own /tmp, so for a process in a
// container FindFile looks in <procRoot>/<pid>/root/tmp/hsperfdata_*/<nspid>,
// nspid being the innermost pid of the NSpid: line of <procRoot>/<pid>/status.
// When /proc/<pid>/root cannot be read (another user's process) and the
// process shares the host's pid namespace, it falls back to
// <host>/tmp/hsperfdata_*/<pid>, host being the parent of procRoot ("/" for
// "/proc"), which lets tests point it at a fixture tree.
func FindFile(procRoot string, pid int) (string, error) {
	pidDir := filepath.Join(procRoot, strconv.Itoa(pid))
	status, err := os.ReadFile(filepath.Join(pidDir, "status"))
	if err != nil {
		return "", fmt.Errorf("hsperf: pid %d: %w", pid, err)
	}
	nspid := innermostPID(status, pid)
	name := strconv.Itoa(nspid)
	looked := []string{filepath.Join(pidDir, "root", "tmp", "hsperfdata_*", name)}
	if nspid == pid {
		host := filepath.Dir(filepath.Clean(procRoot))
		looked = append(looked, filepath.Join(host, "tmp", "hsperfdata_*", name))
	}
	for _, pattern := range looked {
		if p := newest(pattern); p != "" {
			return p, nil
		}
	}
	if flag := disabledBy(pidDir); flag != "" {
		return "", fmt.Errorf("hsperf: pid %d: %w (%s)", pid, ErrPerfDataDisabled, flag)
	}
	if maps, err := os.ReadFile(filepath.Join(pidDir, "maps")); err == nil && !bytes.Contains(maps, []byte("/libjvm.so")) {
		return "", fmt.Errorf("hsperf: pid %d: %w", pid, ErrNotJVM)
	}
	return "", fmt.Errorf("hsperf: pid %d: %w in %s", pid, ErrNoFile, strings.Join(looked, " or "))
}

// innermostPID returns the last pid of the NSpid: line (the pid inside the
// innermost namespace), or pid when there is none (kernels before 4.1).
func innermostPID(status []byte, pid int) int {
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

// newest returns the most recently modified regular file matching pattern:
// the same pid can have files under several users' directories when an
// old JVM died without removing its own.
func newest(pattern string) string {
	matches, _ := filepath.Glob(pattern)
	var best string
	var bestMod int64
	for _, m := range matches {
		fi, err := os.Stat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if mod := fi.ModTime().UnixNano(); best == "" || mod > bestMod {
			best, bestMod = m, mod
		}
	}
	return best
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

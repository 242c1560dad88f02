package hsperf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeProc is a fixture tree: <root>/proc/<pid>/{status,cmdline,environ,maps}
// and files under <root>/proc/<pid>/root/tmp and <root>/tmp.
type fakeProc struct {
	t    *testing.T
	root string
}

func (f fakeProc) write(rel, content string) string {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
	return p
}

const jvmMaps = "7f0000000000-7f0000100000 r-xp 00000000 08:01 123 /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so\n"

func TestFindFile(t *testing.T) {
	tests := []struct {
		name  string
		pid   int
		setup func(f fakeProc) string // returns the wanted path, or ""
		err   error
	}{
		{name: "host process", pid: 4242, setup: func(f fakeProc) string {
			f.write("proc/4242/status", "Name:\tjava\nPid:\t4242\nNSpid:\t4242\n")
			return f.write("proc/4242/root/tmp/hsperfdata_spark/4242", "x")
		}},
		{name: "container process uses the innermost pid", pid: 4242, setup: func(f fakeProc) string {
			f.write("proc/4242/status", "Name:\tjava\nNSpid:\t4242\t77\t7\n")
			// A host file for the host pid belongs to another process.
			f.write("tmp/hsperfdata_root/4242", "other")
			f.write("proc/4242/root/tmp/hsperfdata_root/4242", "other")
			return f.write("proc/4242/root/tmp/hsperfdata_spark/7", "x")
		}},
		{name: "root unreadable falls back to host tmp", pid: 4242, setup: func(f fakeProc) string {
			f.write("proc/4242/status", "Name:\tjava\nNSpid:\t4242\n")
			return f.write("tmp/hsperfdata_yarn/4242", "x")
		}},
		{name: "no NSpid line (old kernel)", pid: 31, setup: func(f fakeProc) string {
			f.write("proc/31/status", "Name:\tjava\nPid:\t31\n")
			return f.write("tmp/hsperfdata_yarn/31", "x")
		}},
		{name: "container without its root: no host fallback", pid: 4242, setup: func(f fakeProc) string {
			f.write("proc/4242/status", "NSpid:\t4242\t7\n")
			f.write("proc/4242/maps", jvmMaps)
			f.write("tmp/hsperfdata_root/4242", "other")
			f.write("tmp/hsperfdata_root/7", "other")
			return ""
		}, err: ErrNoFile},
		{name: "newest of two users", pid: 9, setup: func(f fakeProc) string {
			f.write("proc/9/status", "NSpid:\t9\n")
			old := f.write("proc/9/root/tmp/hsperfdata_alice/9", "stale")
			past := time.Now().Add(-time.Hour)
			if err := os.Chtimes(old, past, past); err != nil {
				f.t.Fatal(err)
			}
			return f.write("proc/9/root/tmp/hsperfdata_bob/9", "x")
		}},
		{name: "perf data disabled on the command line", pid: 5, setup: func(f fakeProc) string {
			f.write("proc/5/status", "NSpid:\t5\n")
			f.write("proc/5/cmdline", "java\x00-XX:-UsePerfData\x00-cp\x00x\x00Main\x00")
			f.write("proc/5/maps", jvmMaps)
			return ""
		}, err: ErrPerfDataDisabled},
		{name: "shared memory disabled in JAVA_TOOL_OPTIONS", pid: 5, setup: func(f fakeProc) string {
			f.write("proc/5/status", "NSpid:\t5\n")
			f.write("proc/5/cmdline", "java\x00Main\x00")
			f.write("proc/5/environ", "HOME=/root\x00JAVA_TOOL_OPTIONS=-Xss1m -XX:+PerfDisableSharedMem\x00")
			return ""
		}, err: ErrPerfDataDisabled},
		{name: "not a JVM", pid: 6, setup: func(f fakeProc) string {
			f.write("proc/6/status", "NSpid:\t6\n")
			f.write("proc/6/cmdline", "python3\x00worker.py\x00")
			f.write("proc/6/maps", "5555-6666 r-xp 0 08:01 1 /usr/bin/python3.11\n")
			return ""
		}, err: ErrNotJVM},
		{name: "no such process", pid: 404, setup: func(f fakeProc) string { return "" }, err: os.ErrNotExist},
		// Issue 32: files any local user can plant under /tmp.
		{name: "a planted file larger than HotSpot writes", pid: 12, setup: func(f fakeProc) string {
			f.write("proc/12/status", "NSpid:\t12\n")
			p := f.write("tmp/hsperfdata_mallory/12", "")
			if err := os.Truncate(p, 3<<30); err != nil { // sparse: 3 GB
				f.t.Fatal(err)
			}
			return ""
		}, err: ErrUntrusted},
		{name: "the newest file is planted, the JVM's is taken", pid: 13, setup: func(f fakeProc) string {
			f.write("proc/13/status", "NSpid:\t13\n")
			own := f.write("tmp/hsperfdata_spark/13", "x")
			past := time.Now().Add(-time.Hour)
			if err := os.Chtimes(own, past, past); err != nil {
				f.t.Fatal(err)
			}
			dir := f.write("tmp/hsperfdata_mallory/13", "planted")
			if err := os.Chmod(filepath.Dir(dir), 0o777); err != nil {
				f.t.Fatal(err)
			}
			return own
		}},
		{name: "a link in the JVM's place", pid: 14, setup: func(f fakeProc) string {
			f.write("proc/14/status", "NSpid:\t14\n")
			target := f.write("etc/shadow", "root:x")
			f.write("tmp/hsperfdata_spark/keep", "")
			if err := os.Symlink(target, filepath.Join(f.root, "tmp/hsperfdata_spark/14")); err != nil {
				f.t.Fatal(err)
			}
			return ""
		}, err: ErrUntrusted},
		{name: "a file others may write", pid: 15, setup: func(f fakeProc) string {
			f.write("proc/15/status", "NSpid:\t15\n")
			if err := os.Chmod(f.write("tmp/hsperfdata_spark/15", "x"), 0o666); err != nil {
				f.t.Fatal(err)
			}
			return ""
		}, err: ErrUntrusted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeProc{t: t, root: t.TempDir()}
			want := tt.setup(f)
			got, err := FindFile(filepath.Join(f.root, "proc"), tt.pid)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %q, %v, want error %v", got, err, tt.err)
				}
				if !strings.Contains(err.Error(), "pid ") {
					t.Errorf("error %q does not name the pid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// TestFindFileOtherUser: a file owned by another user than the process's
// is passed over (needs root, to give a file away).
func TestFindFileOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a file to another user")
	}
	f := fakeProc{t: t, root: t.TempDir()}
	f.write("proc/16/status", "NSpid:\t16\n")
	p := f.write("tmp/hsperfdata_nobody/16", "x")
	for _, q := range []string{p, filepath.Dir(p)} {
		if err := os.Chown(q, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	_, err := FindFile(filepath.Join(f.root, "proc"), 16)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("got %v, want ErrUntrusted naming the owner", err)
	}
}

// TestReadFileBounded: a file larger than HotSpot writes is refused after
// a bounded read, not read whole.
func TestReadFileBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "1")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 1<<30); err != nil {
		t.Fatal(err)
	}
	r := NewReader(p)
	defer r.Close()
	if _, err := r.Read(); err == nil || !strings.Contains(err.Error(), "larger than its bound") {
		t.Errorf("Reader: got %v, want a bound error", err)
	}
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), "larger than its bound") {
		t.Errorf("ReadFile: got %v, want a bound error", err)
	}
}

package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeJcmd writes a jcmd stand-in that creates the dump file it is asked
// for and logs its arguments, so the trigger's rules can be tested without
// a JVM.
func fakeJcmd(t *testing.T) (path, log string) {
	t.Helper()
	dir := t.TempDir()
	path, log = filepath.Join(dir, "jcmd"), filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$@\" >> " + log + "\n: > \"$3\"\necho \"Dumping heap to $3 ...\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

func TestHeapDumpRules(t *testing.T) {
	jcmd, log := fakeJcmd(t)
	dir := t.TempDir()
	// Executors at 90 %, the driver at 97 %; one dump of a JVM per hour.
	h := newHeapDumper(Config{HeapDumpAt: 0.9, HeapDumpAtRole: map[Role]float64{RoleDriver: 0.97}, HeapDumpDir: dir,
		HeapDumpEvery: time.Hour, Jcmd: jcmd}.withDefaults())
	proc := func(pid int, fill float64) *Process {
		p := &Process{PID: pid, Role: RoleExecutor, AppID: "app-1", ExecutorID: strconv.Itoa(pid), JVM: &JVM{HeapUsedBytes: 1 << 20, HeapMaxBytes: 2 << 20,
			OldGenUsedBytes: uint64(fill * 1000), OldGenMaxBytes: 1000}}
		if pid == 9 {
			p.Role, p.ExecutorID = RoleDriver, "driver"
		}
		return p
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	steps := []struct {
		at     time.Duration // after now
		pid    int
		fill   float64
		dumped bool
	}{
		{1 * time.Second, 1, 0.95, false}, // first sample above: wait for a second
		{2 * time.Second, 3, 0.95, false},
		{3 * time.Second, 3, 0.50, false}, // pid 3 drops below: its count restarts
		{4 * time.Second, 1, 0.95, true},  // second consecutive sample above: dump
		{5 * time.Second, 1, 0.99, false}, // once per hour per JVM
		{6 * time.Second, 2, 0.95, false},
		{7 * time.Second, 2, 0.95, true},           // another executor is not held back by the first
		{8 * time.Second, 9, 0.95, false},          // the driver: under its own threshold
		{9 * time.Second, 9, 0.98, false},          // above it: first sample
		{10 * time.Second, 9, 0.98, true},          // second: dump
		{time.Hour + 5*time.Second, 1, 0.99, true}, // an hour after its first dump, still near OOM: dumped again
	}
	var want []string
	for i, s := range steps {
		p := proc(s.pid, s.fill)
		if ev, ok := h.check(context.Background(), procKey{s.pid, 1}, p, now.Add(s.at)); ok {
			t.Errorf("step %d: got immediate event %+v, want none", i, ev)
		}
		if !s.dumped {
			continue
		}
		want = append(want, fmt.Sprintf("%d GC.heap_dump %s", s.pid, filepath.Join(dir, dumpName(p, now.Add(s.at)))))
		deadline := time.After(10 * time.Second)
		for done := false; !done; {
			select {
			case <-deadline:
				t.Fatalf("step %d: no dump finished within 10s", i)
			case <-time.After(20 * time.Millisecond):
				for _, r := range h.finished() {
					if r.ev.Type != EventHeapDump || r.ev.HeapDump == "" || r.key.pid != s.pid || r.ev.AppID != "app-1" {
						t.Errorf("step %d: got %+v, want a heap-dump event with its path for pid %d", i, r, s.pid)
					}
					done = true
				}
			}
		}
	}
	time.Sleep(100 * time.Millisecond)
	if extra := h.finished(); len(extra) != 0 {
		t.Errorf("got further dumps %+v", extra)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(strings.ReplaceAll(string(calls), "\n", " ")); strings.Join(got, " ") != strings.Join(strings.Fields(strings.Join(want, " ")), " ") {
		t.Errorf("jcmd calls:\n%s\nwant:\n%s", calls, strings.Join(want, "\n"))
	}
}

func TestHeapDumpNeedsFreeDisk(t *testing.T) {
	jcmd, log := fakeJcmd(t)
	h := newHeapDumper(Config{HeapDumpAt: 0.5, HeapDumpDir: t.TempDir(), Jcmd: jcmd}.withDefaults())
	p := &Process{PID: 7, JVM: &JVM{HeapUsedBytes: 1 << 62, HeapMaxBytes: 1<<62 + 1}}
	var ev Event
	for i := 0; i < 2; i++ {
		ev, _ = h.check(context.Background(), procKey{7, 1}, p, time.Now())
	}
	if ev.HeapDump != "" || !strings.Contains(ev.Detail, "skipped") {
		t.Errorf("got %+v, want a skipped dump naming the free space", ev)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("jcmd ran, want it not run without disk space")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{}, true},
		{"heap dump", Config{HeapDumpAt: 0.95, HeapDumpDir: "/tmp"}, true},
		{"threshold without dir", Config{HeapDumpAt: 0.95}, false},
		{"threshold above one", Config{HeapDumpAt: 1.5, HeapDumpDir: "/tmp"}, false},
		{"negative threshold", Config{HeapDumpAt: -0.1, HeapDumpDir: "/tmp"}, false},
		{"relative dir", Config{HeapDumpAt: 0.9, HeapDumpDir: "dumps"}, false},
		{"negative interval", Config{Interval: -time.Second}, false},
		{"application patterns", Config{HeapDumpAt: 0.9, HeapDumpDir: "/tmp", HeapDumpApps: []string{"app-2026*", "local-1"}}, true},
		{"bad application pattern", Config{HeapDumpAt: 0.9, HeapDumpDir: "/tmp", HeapDumpApps: []string{"app-[2026"}}, false},
		{"profiles", Config{ProfileEvery: time.Minute, ProfileDir: "/tmp"}, true},
		{"profiles without dir", Config{ProfileEvery: time.Minute}, false},
		{"profile dir missing", Config{ProfileEvery: time.Minute, ProfileDir: "/nonexistent/profiles"}, false},
		{"profile as long as its period", Config{ProfileEvery: time.Minute, ProfileDuration: time.Minute, ProfileDir: "/tmp"}, false},
		{"default duration past a short period", Config{ProfileEvery: 20 * time.Second, ProfileDir: "/tmp"}, false},
		{"negative profile bound", Config{ProfileEvery: time.Minute, ProfileDir: "/tmp", ProfileMaxBytes: -1}, false},
		{"bad profile pattern", Config{ProfileEvery: time.Minute, ProfileDir: "/tmp", ProfileApps: []string{"app-[2026"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); (err == nil) != tt.ok {
				t.Errorf("got %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// TestRealHeapDump fills a G1 executor's heap past the threshold and
// expects exactly one .hprof however many samples follow.
func TestRealHeapDump(t *testing.T) {
	p := startJVM(t, nil, []string{"-Xmx128m", "-XX:+UseG1GC"}, executorClass, executorArgs("app-heap", "4")...)
	p.do(t, "fill 0.7")
	p.do(t, "gc")
	dir := t.TempDir()
	a := realAgent(t, Config{HeapDumpAt: 0.6, HeapDumpDir: dir, HeapDumpApps: []string{"app-heap"}})
	events, onProcess := dumpEvents(t, a, p.PID)
	dumps, _ := filepath.Glob(filepath.Join(dir, "*.hprof"))
	if len(dumps) != 1 || len(events) != 1 {
		t.Fatalf("got dumps %v and events %+v, want exactly one of each", dumps, events)
	}
	ev := events[0]
	if ev.Type != EventHeapDump || ev.HeapDump != dumps[0] || ev.AppID != "app-heap" || ev.ExecutorID != "4" {
		t.Errorf("got %+v, want a heap-dump event for app-heap executor 4 naming %s", ev, dumps[0])
	}
	if onProcess != dumps[0] {
		t.Errorf("got heapDump %q on the process, want %s in the cycle the dump finished", onProcess, dumps[0])
	}
	if !strings.HasPrefix(filepath.Base(dumps[0]), "app-heap-4-pid") {
		t.Errorf("got dump name %s, want app-heap-4-pid…", filepath.Base(dumps[0]))
	}
	head := make([]byte, 18)
	f, err := os.Open(dumps[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Read(head); err != nil || string(head) != "JAVA PROFILE 1.0.2" {
		t.Errorf("got header %q (%v), want JAVA PROFILE 1.0.2", head, err)
	}
}

// dumpEvents samples with a until p's heap dump has finished, then a few
// times more: p's events and the heap dump its process carried.
func dumpEvents(t *testing.T, a *Agent, pid int) (events []Event, onProcess string) {
	t.Helper()
	after := -1
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; after < 3; i++ {
		s := sample(t, a)
		for _, ev := range s.Events {
			if ev.PID == pid {
				events = append(events, ev)
			}
		}
		if got := byPID(s)[pid]; got.HeapDump != "" {
			onProcess = got.HeapDump
		}
		if got := byPID(s)[pid]; i == 0 && got.JVM != nil {
			used, max := heapFill(got.JVM)
			t.Logf("old generation %d of %d bytes", used, max)
		}
		switch {
		case after >= 0 || len(events) > 0:
			after++
		case time.Now().After(deadline):
			t.Fatal("no heap dump within 60s")
		default:
			time.Sleep(200 * time.Millisecond)
		}
	}
	return events, onProcess
}

// TestRealHeapDumpUpload: a real JVM's dump is uploaded to each store —
// S3 (a real MinIO), ADLS Gen2 (Azurite), Cloud Storage (fake-gcs-server) —
// under the configured prefix, byte for byte, and its event names the
// object and carries the dump's largest classes: the byte arrays the JVM
// holds first. One JVM, one agent per store (each dumps it once).
func TestRealHeapDumpUpload(t *testing.T) {
	p := startJVM(t, nil, []string{"-Xmx128m", "-XX:+UseG1GC"}, executorClass, executorArgs("app-up", "2")...)
	p.do(t, "fill 0.7")
	p.do(t, "gc")
	for _, tt := range emulatedStores() {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.start(t)
			a := realAgent(t, Config{HeapDumpAt: 0.6, HeapDumpDir: t.TempDir(), HeapDumpApps: []string{"app-up"}, HeapDumpUpload: b.url + "/", Stores: b.stores})
			events, _ := dumpEvents(t, a, p.PID)
			if len(events) != 1 || events[0].HeapDump == "" {
				t.Fatalf("got events %+v, want one heap dump", events)
			}
			ev := events[0]
			key := "node-1/" + filepath.Base(ev.HeapDump)
			if want := b.url + "/" + filepath.Base(ev.HeapDump); ev.HeapDumpURL != want {
				t.Fatalf("got heapDumpUrl %q (detail %q), want %s", ev.HeapDumpURL, ev.Detail, want)
			}
			local, err := os.ReadFile(ev.HeapDump)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.read(t, key); !bytes.Equal(got, local) {
				t.Fatalf("read back %d bytes, equal %v; want the dump's %d bytes", len(got), bytes.Equal(got, local), len(local))
			}
			t.Logf("%d-byte dump read back whole from %s", len(local), ev.HeapDumpURL)
			// Named as jcmd GC.class_histogram names them ([B is byte[]); the
			// dump holds live objects only (jcmd GC.heap_dump collects first).
			if len(ev.HeapTop) == 0 || ev.HeapTop[0].Class != "[B" || ev.HeapTop[0].Bytes < 32<<20 {
				t.Errorf("got heapTop %+v, want [B first with the tens of MB the JVM holds", ev.HeapTop)
			}
		})
	}
}

package hsperf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFixturesMatchJstat compares every fixture with the jstat -gc and
// jstat -class output capture.sh recorded from the same JVM at the moment
// the file was copied (the JVM idle, waiting for its next command).
func TestFixturesMatchJstat(t *testing.T) {
	for _, name := range fixtures {
		for _, option := range []string{"gc", "class"} {
			t.Run(name+"/"+option, func(t *testing.T) {
				s, err := Parse(readFixture(t, name))
				if err != nil {
					t.Fatal(err)
				}
				out, err := os.ReadFile(filepath.Join("testdata", name+".jstat-"+option))
				if err != nil {
					t.Fatal(err)
				}
				compareJstat(t, option, string(out), s, s)
			})
		}
	}
}

// xmx reads -Xmx from the JVM arguments.
func xmx(t *testing.T, args string) int64 {
	t.Helper()
	for _, a := range strings.Fields(args) {
		if v, ok := strings.CutPrefix(a, "-Xmx"); ok {
			n, ok := jvmSize(v)
			if !ok {
				t.Fatalf("bad %s", a)
			}
			return n
		}
	}
	t.Fatalf("no -Xmx in %q", args)
	return 0
}

// checkJVM checks the typed view of a JVM that ran testdata/Workload.java
// through at least: threads 5, classes 300, drop, gc.
func checkJVM(t *testing.T, j JVM, jdk string) {
	t.Helper()
	if j.MainClass != "Workload" || len(j.Args) != 0 {
		t.Errorf("got main class %q args %q, want Workload and none", j.MainClass, j.Args)
	}
	if !strings.HasPrefix(j.JavaVersion, jdk) || j.VMName == "" || j.JavaHome == "" || j.VMVendor == "" {
		t.Errorf("got java %q vm %q home %q vendor %q, want java %s...", j.JavaVersion, j.VMName, j.JavaHome, j.VMVendor, jdk)
	}
	if y := j.StartTime.Year(); y < 2024 || y > 2100 {
		t.Errorf("got start time %v", j.StartTime)
	}
	if jdk == "17" && j.Uptime <= 0 {
		t.Errorf("got uptime %v, want > 0 (JDK 17 has sun.os.hrt.ticks)", j.Uptime)
	}
	max := xmx(t, j.JVMArgs)
	// G1 pads every capacity counter by 8 bytes so that jstat never shows
	// a zero capacity; allow for a few of them.
	if j.Heap.Max < max || j.Heap.Max > max+64 {
		t.Errorf("got heap max %d, want -Xmx %d", j.Heap.Max, max)
	}
	if j.Heap.Used <= 0 || j.Heap.Used > j.Heap.Committed || j.Heap.Committed > j.Heap.Max {
		t.Errorf("got heap used %d committed %d max %d, want 0 < used <= committed <= max",
			j.Heap.Used, j.Heap.Committed, j.Heap.Max)
	}
	if r := j.Heap.OldRatio(); j.Heap.OldUsed <= 0 || r <= 0 || r >= 1 {
		t.Errorf("got old used %d max %d ratio %v", j.Heap.OldUsed, j.Heap.OldMax, r)
	}
	var spaces int64
	for _, g := range j.Generations {
		for _, s := range g.Spaces {
			spaces += s.Used
			if s.Used > s.Capacity || s.Name == "" {
				t.Errorf("generation %d space %d %q: used %d > capacity %d", g.Index, s.Index, s.Name, s.Used, s.Capacity)
			}
		}
	}
	if spaces != j.Heap.Used {
		t.Errorf("got heap used %d, want the sum of the spaces %d", j.Heap.Used, spaces)
	}
	if len(j.Collectors) == 0 {
		t.Fatal("no collectors")
	}
	for i, c := range j.Collectors {
		if i > 0 && c.Index <= j.Collectors[i-1].Index {
			t.Errorf("collectors not in index order: %d after %d", c.Index, j.Collectors[i-1].Index)
		}
		if c.Name == "" {
			t.Errorf("collector %d has no name", c.Index)
		}
		// jstat's columns are by index: 0 young, 1 full, 2 concurrent.
		if want := gcKind(c.Index, ""); c.Kind != want {
			t.Errorf("collector %d %q: got kind %s, want %s", c.Index, c.Name, c.Kind, want)
		}
		if j.Uptime > 0 && (c.Time > j.Uptime || c.LastExit > j.Uptime) {
			t.Errorf("collector %d: time %v last exit %v beyond uptime %v", c.Index, c.Time, c.LastExit, j.Uptime)
		}
	}
	if n := j.GCCount(); n < 2 {
		t.Errorf("got %d collections, want at least the two System.gc()", n)
	}
	if j.GCLastCause == "" || j.GCCause == "" {
		t.Errorf("got gc cause %q last cause %q", j.GCCause, j.GCLastCause)
	}
	if j.Metaspace.Used <= 0 || j.Metaspace.Used > j.Metaspace.Capacity || j.Metaspace.Capacity > j.Metaspace.MaxCapacity {
		t.Errorf("got metaspace %+v", j.Metaspace)
	}
	if j.ClassSpace.Used <= 0 || j.ClassSpace.Used > j.ClassSpace.Capacity {
		t.Errorf("got compressed class space %+v", j.ClassSpace)
	}
	if j.Classes.Unloaded < 300 || j.Classes.Loaded-j.Classes.Unloaded < 300 || j.Classes.LoadTime <= 0 {
		t.Errorf("got classes %+v, want >= 300 unloaded (the dropped generated classes) and more loaded", j.Classes)
	}
	if j.Threads.Daemon < 5 || j.Threads.Live < j.Threads.Daemon || j.Threads.Peak < j.Threads.Live || j.Threads.Started < j.Threads.Peak {
		t.Errorf("got threads %+v, want >= 5 daemon (the parked ones)", j.Threads)
	}
	if j.Safepoints.Count <= 0 || j.Safepoints.Time <= 0 || j.Safepoints.SyncTime <= 0 {
		t.Errorf("got safepoints %+v", j.Safepoints)
	}
	if j.JIT.CompileTime <= 0 || j.JIT.Compiles <= 0 || j.JIT.CodeBytes <= 0 || j.JIT.NMethodBytes < j.JIT.CodeBytes {
		t.Errorf("got JIT %+v", j.JIT)
	}
}

func TestJVMFixtures(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			s, err := Parse(readFixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			jdk := strings.TrimPrefix(strings.Split(name, "-")[0], "jdk")
			checkJVM(t, s.JVM(), jdk)
		})
	}
}

func TestJVMHeapShared(t *testing.T) {
	tests := map[string]bool{
		"jdk17-serial": false, "jdk17-parallel": false, "jdk17-shenandoah": false,
		"jdk17-g1": true, "jdk17-z": true, "jdk25-g1": true, "jdk25-z": true,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := Parse(readFixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.JVM().Heap.Shared; got != want {
				t.Errorf("got Shared %v, want %v", got, want)
			}
		})
	}
}

func TestGCKind(t *testing.T) {
	tests := []struct {
		index int
		name  string
		want  GCKind
	}{
		{0, "Serial young collection pauses", GCYoung},
		{1, "Serial full collection pauses", GCFull},
		{0, "Copy", GCYoung},
		{1, "MSC", GCFull},
		{0, "PSScavenge", GCYoung},
		{1, "PSParallelCompact", GCFull},
		{0, "G1 incremental collections", GCYoung},
		{1, "G1 stop-the-world full collections", GCFull},
		{2, "G1 concurrent cycle pauses", GCConcurrent},
		{2, "Z concurrent cycle pauses", GCConcurrent},
		{0, "ZGC minor collection pauses", GCYoung},
		{2, "ZGC major collection pauses", GCConcurrent},
		{0, "Shenandoah partial", GCYoung},
		{1, "Shenandoah full", GCFull},
		{0, "", GCYoung},
		{1, "something new", GCFull},
		{5, "something new", GCConcurrent},
	}
	for _, tt := range tests {
		if got := gcKind(tt.index, tt.name); got != tt.want {
			t.Errorf("gcKind(%d, %q): got %s, want %s", tt.index, tt.name, got, tt.want)
		}
	}
}

func TestTicksToDuration(t *testing.T) {
	tests := []struct {
		ticks, hz int64
		want      time.Duration
	}{
		{1_000_000_000, 1_000_000_000, time.Second},
		{1_500, 1_000, 1500 * time.Millisecond},
		// 30 days of a nanosecond clock overflows ticks*1e9.
		{30 * 86400 * 1_000_000_000, 1_000_000_000, 30 * 24 * time.Hour},
		{3, 3_000_000_000, time.Nanosecond},
		{12345, 0, 0},
	}
	for _, tt := range tests {
		if got := ticksToDuration(tt.ticks, tt.hz); got != tt.want {
			t.Errorf("ticksToDuration(%d, %d): got %v, want %v", tt.ticks, tt.hz, got, tt.want)
		}
	}
}

func TestXXSize(t *testing.T) {
	for _, c := range []struct {
		args string
		want int64
	}{
		{"-Xmx1g -XX:ReservedCodeCacheSize=3m", 3 << 20},
		{"-XX:ReservedCodeCacheSize=240M -XX:ReservedCodeCacheSize=512k", 512 << 10}, // the last one wins
		{"-XX:ReservedCodeCacheSize=1g", 1 << 30},
		{"-XX:ReservedCodeCacheSize=2621440", 2621440},
		{"-XX:ReservedCodeCacheSize=lots", 0},
		{"-XX:ReservedCodeCacheSize=99999999999t", 0},
		{"-XX:InitialCodeCacheSize=3m", 0},
		{"-Dx=-XX:ReservedCodeCacheSize=9m -XX:ReservedCodeCacheSize=4m", 4 << 20},
		{"-XX:ReservedCodeCacheSize=4m -Dx=-XX:ReservedCodeCacheSize=9m", 4 << 20}, // not an option of its own
		{"", 0},
	} {
		if got := xxSize(c.args, "ReservedCodeCacheSize"); got != c.want {
			t.Errorf("xxSize(%q): got %d, want %d", c.args, got, c.want)
		}
	}
}

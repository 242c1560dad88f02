package agent

import (
	"slices"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/diagnose"
)

func TestDriverData(t *testing.T) {
	driver := func(pid int, young, full uint64, seconds float64, old uint64) Process {
		return Process{PID: pid, Role: RoleDriver, JVM: &JVM{OldGenUsedBytes: old, OldGenMaxBytes: 1000,
			ClassesLoaded: 20000 + young*100, ClassesUnloaded: full * 10,
			GC: []GC{{Name: "G1 Young Generation", Kind: "young", Collections: young, Seconds: seconds / 2},
				{Name: "G1 Old Generation", Kind: "full", Collections: full, Seconds: seconds / 2}}}}
	}
	executor := Process{PID: 7, Role: RoleExecutor, JVM: &JVM{OldGenUsedBytes: 999, OldGenMaxBytes: 1000}}
	snaps := []*Snapshot{
		{Time: 1000, Processes: []Process{executor, driver(10, 1, 1, 0.2, 100)}},
		{Time: 2000, Processes: []Process{executor}},                                             // the driver's hsperfdata not read this cycle
		{Time: 3000, Processes: []Process{driver(10, 5, 1, 0.5, 300)}},                           // young GCs only
		{Time: 4000, Processes: []Process{driver(11, 9, 9, 9, 990), driver(10, 5, 2, 1.5, 850)}}, // a second driver is ignored
	}
	got := DriverData(snaps, "")
	want := []diagnose.DriverSample{
		{Time: time.UnixMilli(1000), GCTimeMs: 200, OldGenUsedBytes: 100, OldGenMaxBytes: 1000, Classes: 20090},
		{Time: time.UnixMilli(3000), GCTimeMs: 500, OldGenUsedBytes: 300, OldGenMaxBytes: 1000, Classes: 20490},
		{Time: time.UnixMilli(4000), GCTimeMs: 1500, FullGC: true, OldGenUsedBytes: 850, OldGenMaxBytes: 1000, Classes: 20480},
	}
	if got == nil || len(got.Driver) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if g := got.Driver[i]; !g.Time.Equal(want[i].Time) || g.GCTimeMs != want[i].GCTimeMs || g.FullGC != want[i].FullGC ||
			g.OldGenUsedBytes != want[i].OldGenUsedBytes || g.OldGenMaxBytes != want[i].OldGenMaxBytes || g.Classes != want[i].Classes {
			t.Errorf("sample %d: got %+v, want %+v", i, g, want[i])
		}
	}
	if DriverData(snaps[:2], "") != nil {
		t.Error("one driver sample: want nil")
	}

	// Another application's driver, seen first on the same node (another
	// test's, or another user's), is not the one asked for by command line.
	other := Process{PID: 3, Role: RoleDriver, Cmdline: "java SparkSubmit --conf spark.eventLog.dir=/logs/b b.py",
		JVM: &JVM{OldGenUsedBytes: 5, OldGenMaxBytes: 1000}}
	mine := func(old uint64) Process {
		return Process{PID: 4, Role: RoleDriver, Cmdline: "java SparkSubmit --conf spark.eventLog.dir=/logs/a a.py",
			JVM: &JVM{OldGenUsedBytes: old, OldGenMaxBytes: 1000}}
	}
	mixed := []*Snapshot{
		{Time: 1000, Processes: []Process{other}},
		{Time: 2000, Processes: []Process{other, mine(10)}},
		{Time: 3000, Processes: []Process{mine(20)}},
	}
	got = DriverData(mixed, "spark.eventLog.dir=/logs/a ")
	if got == nil || len(got.Driver) != 2 || got.Driver[0].OldGenUsedBytes != 10 || got.Driver[1].OldGenUsedBytes != 20 {
		t.Errorf("driver by command line: got %+v, want the samples of PID 4 (old gen 10, 20)", got)
	}
	if got := DriverData(mixed, ""); got == nil || got.Driver[0].OldGenUsedBytes != 5 {
		t.Errorf("any driver: got %+v, want the first driver seen (PID 3)", got)
	}
}

// TestDriverDataAfterLauncher: spark-submit first runs Spark's launcher, a
// short JVM (org.apache.spark.launcher.Main) whose command line holds the
// driver's; a sample that lands on it must not hide the driver that
// follows (CI: "the agent saw the driver JVM in fewer than 2 of 91
// samples" while a driver JVM was in 89 of them).
func TestDriverDataAfterLauncher(t *testing.T) {
	conf := "--conf spark.eventLog.dir=/logs/a org.apache.spark.deploy.SparkSubmit a.py"
	launcher := Process{PID: 20, Role: RoleDriver, Cmdline: "java -Xmx128m org.apache.spark.launcher.Main " + conf,
		JVM: &JVM{OldGenUsedBytes: 1, OldGenMaxBytes: 128}}
	driver := func(old uint64) Process {
		return Process{PID: 21, Role: RoleDriver, Cmdline: "java -Xmx512m " + conf, JVM: &JVM{OldGenUsedBytes: old, OldGenMaxBytes: 1000}}
	}
	for _, c := range []struct {
		name  string
		snaps []*Snapshot
		want  []int64 // old gen used per sample: the driver's
	}{
		{"launcher in one sample", []*Snapshot{
			{Time: 1000, Processes: []Process{launcher}},
			{Time: 2000, Processes: []Process{driver(10)}},
			{Time: 3000, Processes: []Process{driver(20)}},
			{Time: 4000, Processes: []Process{driver(30)}},
		}, []int64{10, 20, 30}},
		{"launcher in two samples, beside the driver in one", []*Snapshot{
			{Time: 1000, Processes: []Process{launcher}},
			{Time: 2000, Processes: []Process{launcher, driver(10)}},
			{Time: 3000, Processes: []Process{driver(20)}},
			{Time: 4000, Processes: []Process{driver(30)}},
		}, []int64{10, 20, 30}},
		{"launcher only", []*Snapshot{
			{Time: 1000, Processes: []Process{launcher}},
			{Time: 2000, Processes: []Process{}},
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := DriverData(c.snaps, "spark.eventLog.dir=/logs/a ")
			var old []int64
			if got != nil {
				for _, s := range got.Driver {
					old = append(old, s.OldGenUsedBytes)
				}
			}
			if !slices.Equal(old, c.want) {
				t.Errorf("got old gen %v, want %v (the driver's, PID 21)", old, c.want)
			}
		})
	}
}

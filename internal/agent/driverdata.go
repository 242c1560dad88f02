package agent

import (
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// DriverData turns snapshots, in time order, into the driver samples
// diagnose's driver rules read: one per snapshot that has the driver JVM,
// with GC time summed over every collector, a full GC when the full
// collectors' count grew since the previous sample, the old generation's
// use and maximum, and the classes held (loaded minus unloaded). It is the
// same reading serve makes of these snapshots sent over OTLP
// (server.AgentData: jvm.gc.duration, jvm.gc.count{end of major GC},
// jvm.memory.used/limit of the old pool, jvm.class.count).
// Nil with fewer than two samples.
//
// The driver is the driver-role JVM whose command line contains cmdline
// (any driver when cmdline is empty: another application's driver on the
// same node is not it) seen in the most snapshots — the one that lives,
// not the first seen: spark-submit's launcher (org.apache.spark.launcher.Main)
// is a short JVM with the driver's command line that runs just before it,
// and a sample can land on it. A tie goes to the driver seen first.
func DriverData(snaps []*Snapshot, cmdline string) *diagnose.AgentData {
	pid := liveDriver(snaps, cmdline)
	var out []diagnose.DriverSample
	var prevFull uint64
	for _, s := range snaps {
		j := driverJVM(s, pid)
		if j == nil {
			continue
		}
		var gcSeconds float64
		var full uint64
		for _, g := range j.GC {
			gcSeconds += g.Seconds
			if g.Kind == "full" {
				full += g.Collections
			}
		}
		out = append(out, diagnose.DriverSample{Time: time.UnixMilli(s.Time), GCTimeMs: int64(gcSeconds * 1000),
			FullGC: len(out) > 0 && full > prevFull, OldGenUsedBytes: int64(j.OldGenUsedBytes),
			OldGenMaxBytes: int64(j.OldGenMaxBytes), Classes: int64(j.ClassesLoaded - min(j.ClassesUnloaded, j.ClassesLoaded))})
		prevFull = full
	}
	if len(out) < 2 {
		return nil
	}
	return &diagnose.AgentData{Driver: out}
}

// liveDriver is the PID of the driver JVM matching cmdline that the most
// snapshots hold (the first seen of those on a tie); 0 for none.
func liveDriver(snaps []*Snapshot, cmdline string) int {
	seen := map[int]int{}
	var order []int
	for _, s := range snaps {
		for i := range s.Processes {
			p := &s.Processes[i]
			if p.Role != RoleDriver || p.JVM == nil || !strings.Contains(p.Cmdline, cmdline) {
				continue
			}
			if seen[p.PID] == 0 {
				order = append(order, p.PID)
			}
			seen[p.PID]++
		}
	}
	best := 0
	for _, pid := range order {
		if best == 0 || seen[pid] > seen[best] {
			best = pid
		}
	}
	return best
}

// driverJVM is the JVM of process pid in s, nil when s lacks it.
func driverJVM(s *Snapshot, pid int) *JVM {
	for i := range s.Processes {
		if p := &s.Processes[i]; p.PID == pid && p.Role == RoleDriver {
			return p.JVM
		}
	}
	return nil
}

package agent

import (
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// DriverData turns snapshots, in time order, into the driver samples
// diagnose's driver rules read: one per snapshot that has the driver JVM
// (the first driver whose command line contains cmdline — any driver when
// cmdline is empty —, then followed by its PID; another application's
// driver on the same node is not it), with GC time summed over
// every collector, a full GC when the full collectors' count grew since
// the previous sample, and the old generation's use and maximum. It is the
// same reading serve makes of these snapshots sent over OTLP
// (server.AgentData: jvm.gc.duration, jvm.gc.count{end of major GC},
// jvm.memory.used/limit of the old pool). Nil with fewer than two samples.
func DriverData(snaps []*Snapshot, cmdline string) *diagnose.AgentData {
	pid := 0
	var out []diagnose.DriverSample
	var prevFull uint64
	for _, s := range snaps {
		var j *JVM
		for i := range s.Processes {
			p := &s.Processes[i]
			if p.Role == RoleDriver && p.JVM != nil && (pid == 0 && strings.Contains(p.Cmdline, cmdline) || p.PID == pid) {
				pid, j = p.PID, p.JVM
				break
			}
		}
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
			OldGenMaxBytes: int64(j.OldGenMaxBytes)})
		prevFull = full
	}
	if len(out) < 2 {
		return nil
	}
	return &diagnose.AgentData{Driver: out}
}

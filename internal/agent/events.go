package agent

import (
	"fmt"
	"sort"
	"time"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
)

// Event types.
const (
	EventExit     = "process-exit" // a Spark process disappeared
	EventHeapDump = "heap-dump"    // the agent dumped a JVM's heap near OOM
)

// Exit causes.
const (
	CauseOOMKill     = "oom-kill"      // its cgroup's OOM-kill count rose
	CauseNodeOOMKill = "node-oom-kill" // the node's OOM-kill count rose (cgroup unknown or gone)
	CauseUnknown     = "unknown"
)

// Event is something that happened to a Spark process between two cycles.
type Event struct {
	Type       string `json:"type"`
	Time       int64  `json:"time"`
	PID        int    `json:"pid"`
	Role       Role   `json:"role"`
	AppID      string `json:"appId,omitempty"`
	ExecutorID string `json:"executorId,omitempty"`
	Cause      string `json:"cause,omitempty"`
	Detail     string `json:"detail,omitempty"`
	HeapDump   string `json:"heapDump,omitempty"`
	// For a heap dump: where it was uploaded (s3://…), its largest
	// classes and what they mean to a Spark user, so the event alone says
	// what filled the heap.
	HeapDumpURL string            `json:"heapDumpUrl,omitempty"`
	HeapTop     []hprof.ClassStat `json:"heapTop,omitempty"`
	HeapNotes   []hprof.Note      `json:"heapNotes,omitempty"`
	// Last is the process's last sample before it disappeared.
	Last *Process `json:"last,omitempty"`
}

// exitEvents reports the processes of the previous cycle that are gone,
// with the cause when the kernel's OOM-kill counters tell it.
func (a *Agent) exitEvents(seen map[procKey]Process, node Node, now time.Time) []Event {
	var out []Event
	for k, last := range a.prev {
		if _, ok := seen[k]; ok {
			continue
		}
		ev := Event{Type: EventExit, Time: now.UnixMilli(), PID: last.PID, Role: last.Role,
			AppID: last.AppID, ExecutorID: last.ExecutorID, HeapDump: a.dumped[k]}
		ev.Cause, ev.Detail = exitCause(last, a.prevNode, node)
		delete(a.dumped, k)
		if a.dumps != nil {
			a.dumps.forget(k)
		}
		ev.Last = &last
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// exitCause compares the OOM-kill counters of the process's memory cgroup
// (re-read now) and of the node with their values at the last sample.
func exitCause(last Process, prevNode, node Node) (cause, detail string) {
	detail = memoryDetail(last)
	if c := last.Container; c != nil && c.memDir != "" {
		if n, ok := oomKills(c.CgroupVersion, c.memDir); ok && n > c.OOMKills {
			d := fmt.Sprintf("cgroup %s oom_kill %d → %d", c.Path, c.OOMKills, n)
			return CauseOOMKill, join(d, detail)
		}
	}
	if prevNode.BootTime != 0 && node.OOMKills > prevNode.OOMKills {
		d := fmt.Sprintf("node oom_kill %d → %d", prevNode.OOMKills, node.OOMKills)
		return CauseNodeOOMKill, join(d, detail)
	}
	return CauseUnknown, detail
}

// memoryDetail states how full memory was at the last sample, which is what
// a reader asks next about a process that vanished.
func memoryDetail(p Process) string {
	var s string
	if c := p.Container; c != nil && c.MemoryLimitBytes > 0 {
		s = fmt.Sprintf("last RSS %d of cgroup limit %d bytes (%.0f%%)", p.RSSBytes, c.MemoryLimitBytes,
			100*float64(p.RSSBytes)/float64(c.MemoryLimitBytes))
	}
	if j := p.JVM; j != nil {
		if used, max := heapFill(j); max > 0 {
			s = join(s, fmt.Sprintf("heap %d of %d bytes (%.0f%%)", used, max, 100*float64(used)/float64(max)))
		}
	}
	return s
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

package agent

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/procfs"
)

// procInfo is what discovery reads for every process on the node: enough to
// build the process tree and classify command lines.
type procInfo struct {
	proc  procfs.Proc
	stat  procfs.ProcStat
	argv  []string
	kind  Kind
	spark bool
}

// table is the node's process tree from one walk of /proc.
type table struct {
	byPID    map[int]*procInfo
	children map[int][]int
}

// found is a Spark JVM with the processes below it that are not Spark JVMs.
type found struct {
	info        *procInfo
	id          Identity
	descendants []*procInfo
}

// scan walks /proc once, reading stat and cmdline of every process. Processes
// that vanish mid-walk or whose files cannot be read are skipped and counted.
func scan(fs procfs.FS, errs map[string]int) (*table, error) {
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	t := &table{byPID: make(map[int]*procInfo, len(procs)), children: make(map[int][]int, len(procs))}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			errs["stat"]++
			continue
		}
		argv, err := p.CmdLine()
		if err != nil {
			errs["cmdline"]++
		}
		t.byPID[p.PID] = &procInfo{proc: p, stat: st, argv: argv, kind: kindOf(argv, st.Comm)}
		t.children[st.PPID] = append(t.children[st.PPID], p.PID)
	}
	return t, nil
}

// discover classifies every process and returns the Spark JVMs, each with the
// descendants it owns, ordered by pid. A descendant belongs to its nearest
// Spark JVM ancestor, so a standalone Worker does not own its executors.
func discover(t *table) []found {
	var out []found
	for _, pi := range t.byPID {
		id, ok := classify(pi.argv)
		if !ok {
			continue
		}
		pi.spark = true
		out = append(out, found{info: pi, id: id})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].info.proc.PID < out[j].info.proc.PID })
	for i := range out {
		out[i].descendants = t.descendants(out[i].info.proc.PID)
	}
	return out
}

// descendants lists the processes below pid, not descending into other Spark
// JVMs, in breadth-first, pid order.
func (t *table) descendants(pid int) []*procInfo {
	var out []*procInfo
	queue := []int{pid}
	for len(queue) > 0 {
		kids := append([]int(nil), t.children[queue[0]]...)
		queue = queue[1:]
		sort.Ints(kids)
		for _, k := range kids {
			pi := t.byPID[k]
			if pi == nil || pi.spark || k == pid {
				continue
			}
			out = append(out, pi)
			queue = append(queue, k)
		}
	}
	return out
}

// childName names a descendant: the Python module or script it runs
// (pyspark.daemon, pyspark.worker), else its program name.
func childName(pi *procInfo) string {
	if pi.kind == KindPython {
		if m := pythonModule(pi.argv); m != "" {
			return m
		}
	}
	return pi.stat.Comm
}

func joinArgv(argv []string) string { return strings.Join(argv, " ") }

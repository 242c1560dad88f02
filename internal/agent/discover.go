package agent

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/sparkdx/sparkdx/internal/jvm/hsperf"
	"github.com/sparkdx/sparkdx/internal/redact"
)

// procInfo is what discovery reads for every process on the node: enough to
// build the process tree and classify command lines.
type procInfo struct {
	proc  procfs.Proc
	stat  procfs.ProcStat
	argv  []string
	kind  Kind
	spark bool
	known *known
}

// known is what the agent remembers about a process between cycles: what
// does not change while the process runs the same program. It is keyed by
// pid and start time and dropped when the program changes (exec changes
// the comm name, as when a YARN launch script execs java).
type known struct {
	proc procfs.Proc
	comm string
	argv []string
	kind Kind
	id   Identity
	ok   bool // a Spark JVM
	env  bool // environment already consulted
	// fdTries counts the cycles a driver's open files were read for its
	// application id (appFromOpenFiles).
	fdTries int

	cgroup   *cgroupDirs // nil until resolved
	cgroupOK bool
	hsperf   *hsperf.Reader // of the hsperfdata file, nil until found
	noPerf   string         // why the JVM writes no hsperfdata (-XX:-UsePerfData)

	pss    uint64 // last proportional set size read, when, and the RSS then
	pssAt  time.Time
	pssRSS uint64
	// treeSize is the number of descendants a Spark JVM had last cycle.
	treeSize int

	status   procStatus // last status read (statusOK), and when
	statusOK bool
	statusAt time.Time
}

// table is the node's process tree from one walk of /proc.
type table struct {
	byPID    map[int]*procInfo
	children map[int][]int
}

// scanner walks /proc every cycle into a table it keeps: the maps, the
// process records and the pid list are reused from cycle to cycle, so that
// a cycle allocates for new processes only.
type scanner struct {
	fs    procfs.FS
	files *procReader
	// redact is applied to every command line before it is kept: what
	// the agent serves and pushes never holds the raw one.
	redact *redact.Rules
	tab    table
	infos  []procInfo
	pids   []int
	// memory is what is known of the processes seen last cycle; spare is
	// the map the next cycle fills, then swapped with it.
	memory, spare map[procKey]*known
}

func newScanner(fs procfs.FS, files *procReader, rules *redact.Rules) *scanner {
	return &scanner{fs: fs, files: files, redact: rules, tab: table{byPID: map[int]*procInfo{}, children: map[int][]int{}},
		memory: map[procKey]*known{}, spare: map[procKey]*known{}}
}

// found is a Spark JVM with the processes below it that are not Spark JVMs
// and, for a driver, the Python process that launched it.
type found struct {
	info        *procInfo
	id          Identity
	descendants []*procInfo
	launcher    *procInfo
}

// scan walks /proc once, reading the stat of every process and the command
// line of those it has not seen before. Processes that vanish mid-walk or
// whose files cannot be read are skipped and counted. The table it returns
// is good until the next scan.
func (sc *scanner) scan(errs map[string]int) (*table, error) {
	pids, err := sc.files.pids(sc.pids)
	sc.pids = pids
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	t := &sc.tab
	clear(t.byPID)
	for ppid, kids := range t.children {
		if len(kids) == 0 {
			delete(t.children, ppid) // no children two cycles running
		} else {
			t.children[ppid] = kids[:0]
		}
	}
	// Pointers into infos go into byPID: it must not move while filled.
	if cap(sc.infos) < len(pids) {
		sc.infos = make([]procInfo, 0, len(pids)+len(pids)/4)
	}
	sc.infos = sc.infos[:0]
	next := sc.spare
	clear(next)
	for _, pid := range pids {
		st, err := sc.files.stat(pid)
		if err != nil {
			errs["stat"]++
			continue
		}
		key := procKey{pid, st.Starttime}
		k := sc.memory[key]
		if k == nil || k.comm != st.Comm {
			if k = sc.learn(pid, st, errs); k == nil {
				continue
			}
			// A zombie has no command line; ask again next time rather
			// than remember it empty. A kernel thread has none ever.
			if len(k.argv) > 0 || kernelThread(pid, st.PPID) {
				next[key] = k
			}
		} else {
			next[key] = k
		}
		sc.infos = append(sc.infos, procInfo{proc: k.proc, stat: st, argv: k.argv, kind: k.kind, known: k})
		t.byPID[pid] = &sc.infos[len(sc.infos)-1]
		t.children[st.PPID] = append(t.children[st.PPID], pid)
	}
	for key, k := range sc.memory {
		if k.hsperf != nil && next[key] != k {
			k.hsperf.Close() // its process is gone, or runs another program
		}
	}
	sc.memory, sc.spare = next, sc.memory
	return t, nil
}

// learn reads what does not change while a process runs one program; nil
// when the process is gone.
func (sc *scanner) learn(pid int, st procfs.ProcStat, errs map[string]int) *known {
	p, err := sc.fs.Proc(pid)
	if err != nil {
		errs["cmdline"]++ // gone meanwhile
		return nil
	}
	k := &known{proc: p, comm: st.Comm}
	if kernelThread(pid, st.PPID) {
		return k
	}
	argv, err := p.CmdLine()
	if err != nil {
		errs["cmdline"]++
	}
	k.kind = kindOf(argv, st.Comm)
	if len(argv) > 0 {
		k.id, k.ok = classify(argv)
	}
	// Classified on the raw command line, kept redacted: the ids, ports
	// and flags read from it later are no secrets.
	k.argv = sc.redact.Args(argv)
	return k
}

// kernelThread: kthreadd (pid 2) and its children, which never exec.
func kernelThread(pid, ppid int) bool { return pid == 2 || ppid == 2 }

// discover classifies every process and returns the Spark JVMs, each with the
// descendants it owns, ordered by pid. A descendant belongs to its nearest
// Spark JVM ancestor, so a standalone Worker does not own its executors.
func discover(t *table) []found {
	var out []found
	for _, pi := range t.byPID {
		if !pi.known.ok {
			continue
		}
		pi.spark = true
		out = append(out, found{info: pi, id: pi.known.id})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].info.proc.PID < out[j].info.proc.PID })
	for i := range out {
		out[i].descendants = t.descendants(out[i].info.proc.PID)
		if out[i].id.Role == RoleDriver {
			out[i].launcher = t.launcher(out[i].info)
		}
	}
	return out
}

// launcherDepth bounds the walk from a driver JVM up to the Python process
// that started it: pyspark's launch_gateway runs spark-submit, whose
// scripts exec java, so the JVM's parent is Python itself; a shell left in
// between (sh -c, a wrapper script) is passed over.
const launcherDepth = 3

// launcher finds the Python process a driver JVM was started by — python
// job.py, a notebook kernel, an orchestrator's task (an Airflow task runs
// Python) — among its nearest ancestors; nil when spark-submit started it
// (its Python program, if any, is then a child of the JVM).
func (t *table) launcher(driver *procInfo) *procInfo {
	pid := driver.stat.PPID
	for range launcherDepth {
		pi := t.byPID[pid]
		if pi == nil || pi.spark || pid <= 1 {
			return nil
		}
		if pi.kind == KindPython {
			return pi
		}
		pid = pi.stat.PPID
	}
	return nil
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

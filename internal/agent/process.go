package agent

import (
	"errors"
	"io/fs"
	"time"

	"github.com/prometheus/procfs"
)

// userHZ is the kernel's clock tick for /proc/<pid>/stat times; it is 100 on
// every Linux architecture Spark runs on.
const userHZ = 100

// processCollector reads per-process figures from /proc/<pid>: stat, status,
// smaps_rollup, io and fd.
type processCollector struct {
	pageSize uint64
	bootTime uint64 // seconds since the epoch, from /proc/stat btime
	now      time.Time
	pssEvery time.Duration
	files    *procReader
}

// collect fills the /proc figures of a Spark JVM and of its descendants, and
// sums the tree by kind. Files the agent may not read (io, fd and
// smaps_rollup of other users' processes without root) are counted in errs
// and left zero.
func (c processCollector) collect(f found, errs map[string]int) Process {
	pi := f.info
	p := Process{
		PID:         pi.proc.PID,
		PPID:        pi.stat.PPID,
		Role:        f.id.Role,
		AppID:       f.id.AppID,
		ExecutorID:  f.id.ExecutorID,
		Cores:       f.id.Cores,
		Hostname:    f.id.Hostname,
		ContainerID: f.id.ContainerID,
		MainClass:   f.id.MainClass,
		Cmdline:     joinArgv(pi.argv),
		StartTime:   c.startMillis(pi.stat.Starttime),
		State:       pi.stat.State,
		RSSBytes:    uint64(pi.stat.RSS) * c.pageSize,
		Threads:     pi.stat.NumThreads,
		startTicks:  pi.stat.Starttime,
	}
	p.CPUUserSeconds, p.CPUSystemSeconds = cpuSeconds(pi.stat)
	if st, ok := c.status(p.PID, pi.known, errs); ok {
		p.UID, p.gid = st.UID, st.GID
		p.NSPid = st.NSpid
		// stat's resident pages are status's VmRSS (the same counters);
		// the peak is the kernel's as last read, or the resident size now
		// when it is higher.
		p.RSSPeakBytes = max(st.VmHWM, p.RSSBytes)
	}
	// A worker forked or gone changes how its siblings' pages are shared:
	// the whole tree's PSS is read again.
	treeChanged := pi.known != nil && pi.known.treeSize != len(f.descendants)
	if pi.known != nil {
		pi.known.treeSize = len(f.descendants)
	}
	p.PSSBytes = c.pss(pi.proc, pi.known, p.RSSBytes, treeChanged, errs)
	if r, w, err := c.files.io(p.PID); err != nil {
		errs["io"]++
	} else {
		p.ReadBytes, p.WriteBytes = r, w
	}
	if n, err := c.files.fds(p.PID); err != nil {
		errs["fd"]++
	} else {
		p.OpenFDs = n
	}

	// CPU is summed in clock ticks so that the tree's seconds are exact.
	ticks := map[Kind][2]uint{KindJVM: {pi.stat.UTime, pi.stat.STime}}
	p.Tree = map[Kind]TreeSum{KindJVM: {Processes: 1, RSSBytes: p.RSSBytes, PSSBytes: p.PSSBytes}}
	for _, d := range f.descendants {
		ch := c.child(d, treeChanged, errs)
		p.Children = append(p.Children, ch)
		s := p.Tree[ch.Kind]
		s.Processes++
		s.RSSBytes += ch.RSSBytes
		s.PSSBytes += ch.PSSBytes
		p.Tree[ch.Kind] = s
		t := ticks[ch.Kind]
		ticks[ch.Kind] = [2]uint{t[0] + d.stat.UTime, t[1] + d.stat.STime}
	}
	for k, t := range ticks {
		s := p.Tree[k]
		s.CPUUserSeconds, s.CPUSystemSeconds = float64(t[0])/userHZ, float64(t[1])/userHZ
		p.Tree[k] = s
	}
	if f.launcher != nil {
		ch := c.child(f.launcher, false, errs)
		p.Launcher = &ch
	}
	return p
}

func (c processCollector) child(d *procInfo, treeChanged bool, errs map[string]int) Child {
	ch := Child{
		PID:      d.proc.PID,
		PPID:     d.stat.PPID,
		Kind:     d.kind,
		Name:     childName(d),
		Cmdline:  joinArgv(d.argv),
		State:    d.stat.State,
		RSSBytes: uint64(d.stat.RSS) * c.pageSize,
		Threads:  d.stat.NumThreads,
	}
	ch.CPUUserSeconds, ch.CPUSystemSeconds = cpuSeconds(d.stat)
	ch.PSSBytes = c.pss(d.proc, d.known, ch.RSSBytes, treeChanged, errs)
	return ch
}

// status reads /proc/<pid>/status when the process is new and then every
// pssEvery: what the agent takes from it (uid, gid, the namespace pid, the
// peak resident size) hardly changes, and the resident size itself comes
// from stat each cycle. ok is false when it could never be read.
func (c processCollector) status(pid int, k *known, errs map[string]int) (procStatus, bool) {
	if k != nil && k.statusOK && c.now.Sub(k.statusAt) < c.pssEvery {
		return k.status, true
	}
	st, err := c.files.status(pid)
	if err != nil {
		errs["status"]++
		if k != nil && k.statusOK {
			return k.status, true
		}
		return st, false
	}
	if k != nil {
		k.status, k.statusOK, k.statusAt = st, true, c.now
	}
	return st, true
}

// pss reads the proportional set size, which splits pages shared between
// forked Python workers fairly; it is zero where smaps_rollup is unreadable.
// Reading it makes the kernel walk the process's mappings — about 0.8 ms
// for a JVM, 0.2 ms for a Python worker, more than the rest of a cycle for
// a node of them — so a value is kept for at least pssEvery and read again
// only when what it depends on moved: the process's resident size by a
// tenth (pssMoved), or its tree (a worker forked or gone reshares the
// pages), or else after pssStale times pssEvery.
func (c processCollector) pss(p procfs.Proc, k *known, rss uint64, treeChanged bool, errs map[string]int) uint64 {
	if k != nil && !k.pssAt.IsZero() && c.pssEvery >= 0 {
		age := c.now.Sub(k.pssAt)
		if age < c.pssEvery || (age < pssStale*c.pssEvery && !treeChanged && !pssMoved(k.pssRSS, rss)) {
			return k.pss
		}
	}
	var v uint64
	r, err := p.ProcSMapsRollup()
	if err == nil {
		v = r.Pss
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs["smaps_rollup"]++
	}
	if k != nil {
		k.pss, k.pssAt, k.pssRSS = v, c.now, rss
	}
	return v
}

// pssStale bounds, in pssEvery, how long a PSS is kept while nothing moved:
// what else changes it (pages shared with processes outside the tree) moves
// it little.
const pssStale = 30

// pssMoved: the resident size changed by more than a tenth since the PSS
// was read.
func pssMoved(then, now uint64) bool {
	d := max(then, now) - min(then, now)
	return d*10 > then
}

func (c processCollector) startMillis(ticks uint64) int64 {
	if c.bootTime == 0 {
		return 0
	}
	return int64(c.bootTime)*1000 + int64(ticks)*1000/userHZ
}

func cpuSeconds(st procfs.ProcStat) (user, system float64) {
	return float64(st.UTime) / userHZ, float64(st.STime) / userHZ
}

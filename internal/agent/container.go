package agent

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/sparkdx/sparkdx/internal/rawfile"
)

// Container is the cgroup a Spark process runs in: its memory limit and
// usage, how often the kernel's OOM killer struck inside it, and CPU quota
// and throttling. With it "RSS ÷ limit" and "was it the OOM killer" are
// answerable.
type Container struct {
	CgroupVersion int    `json:"cgroupVersion"`
	Path          string `json:"path"`
	// MemoryLimitBytes is the smallest limit on the cgroup and its
	// ancestors; 0 means unlimited. It and the CPU quota are read once a
	// minute (a resized container shows its new limits within a minute).
	MemoryLimitBytes    uint64  `json:"memoryLimitBytes,omitempty"`
	MemoryUsageBytes    uint64  `json:"memoryUsageBytes"`
	OOMKills            uint64  `json:"oomKills"`
	CPUQuotaCores       float64 `json:"cpuQuotaCores,omitempty"` // 0 means no quota
	CPUPeriods          uint64  `json:"cpuPeriods"`
	CPUThrottledPeriods uint64  `json:"cpuThrottledPeriods"`
	CPUThrottledSeconds float64 `json:"cpuThrottledSeconds"`

	memDir string // where oom kills are re-read when the process is gone
}

// containerCollector reads cgroup v1 and v2 files for a process. root is the
// cgroup mount (normally /sys/fs/cgroup); procRoot is the /proc the agent
// reads, used to fall back to a container's own view of its cgroup.
type containerCollector struct {
	root     string
	procRoot string
	buf      *[]byte // reused by every read of a cycle
}

// cgroupDirs is where a process's memory and cpu controllers live.
type cgroupDirs struct {
	version        int
	path           string
	mem, cpu, base string // base bounds the walk up for limits
	// parentLimit is the smallest memory limit on the ancestors, read when
	// the cgroup is first resolved; 0 means none.
	parentLimit uint64

	// The cgroup's own memory limit and CPU quota, read again once they
	// are limitsEvery old (a container is resized rarely; its usage and
	// counters are read every cycle).
	limitsRead time.Time
	memLimit   uint64
	cpuQuota   float64
}

// limitsEvery is how long a cgroup's limits are reused.
const limitsEvery = time.Minute

// collect returns the cgroup figures of a process, or nil when the process
// has no cgroup the agent can read. Where the cgroup lives is looked up
// once per process.
//
// Processes of one cgroup (a YARN container's executor and its Python
// workers' JVM, every executor of a standalone Worker without cgroups of
// their own) share its files' reading within a cycle through cycle, keyed
// by the controllers' directories.
func (c containerCollector) collect(p procfs.Proc, k *known, now time.Time, cycle map[[2]string]Container, errs map[string]int) *Container {
	if k.cgroup == nil {
		cgs, err := p.Cgroups()
		if err != nil {
			errs["cgroup"]++
			return nil
		}
		d, ok := c.resolve(p.PID, cgs)
		if ok && d.mem != d.base {
			d.parentLimit = smallestLimit(filepath.Dir(d.mem), d.base, limitFile(d.version), errs)
		}
		k.cgroup, k.cgroupOK = &d, ok
	}
	if !k.cgroupOK {
		return nil
	}
	if now.Sub(k.cgroup.limitsRead) >= limitsEvery {
		k.cgroup.readLimits(errs)
		k.cgroup.limitsRead = now
	}
	d := *k.cgroup
	key := [2]string{d.mem, d.cpu}
	if v, ok := cycle[key]; ok {
		return &v
	}
	out := &Container{CgroupVersion: d.version, Path: d.path, memDir: d.mem, MemoryLimitBytes: d.memLimit,
		CPUQuotaCores: d.cpuQuota}
	if d.version == 2 {
		c.readV2(d, out, errs)
	} else {
		c.readV1(d, out, errs)
	}
	if cycle != nil {
		cycle[key] = *out
	}
	return out
}

// resolve finds the controller directories from /proc/<pid>/cgroup. A path
// that does not exist under root (the agent runs in another cgroup
// namespace) is looked up in the process's own root filesystem instead.
func (c containerCollector) resolve(pid int, cgs []procfs.Cgroup) (cgroupDirs, bool) {
	var v1mem, v1cpu, v2 *procfs.Cgroup
	for i := range cgs {
		cg := &cgs[i]
		if cg.HierarchyID == 0 && len(cg.Controllers) == 0 {
			v2 = cg
		}
		for _, ctl := range cg.Controllers {
			switch ctl {
			case "memory":
				v1mem = cg
			case "cpu":
				v1cpu = cg
			}
		}
	}
	roots := []string{c.root, filepath.Join(c.procRoot, strconv.Itoa(pid), "root", "sys", "fs", "cgroup")}
	for i, root := range roots {
		// Inside the process's own namespace its cgroup is the root.
		own := i == 1
		if !own && (escapes(v1mem) || escapes(v2)) {
			// Seen from another cgroup namespace (an agent pod without
			// the host's), the path climbs out of the agent's own mount.
			continue
		}
		if v1mem != nil {
			mem := filepath.Join(root, "memory", pathIn(v1mem.Path, own))
			if isDir(mem) {
				d := cgroupDirs{version: 1, path: v1mem.Path, mem: mem, base: filepath.Join(root, "memory")}
				if v1cpu != nil {
					for _, name := range []string{"cpu", "cpu,cpuacct", "cpuacct,cpu"} {
						if dir := filepath.Join(root, name, pathIn(v1cpu.Path, own)); isDir(dir) {
							d.cpu = dir
							break
						}
					}
				}
				return d, true
			}
		}
		if v2 != nil {
			for _, base := range []string{root, filepath.Join(root, "unified")} {
				if !isFile(filepath.Join(base, "cgroup.controllers")) {
					continue
				}
				dir := filepath.Join(base, pathIn(v2.Path, own))
				if isFile(filepath.Join(dir, "memory.current")) || isFile(filepath.Join(dir, "cpu.stat")) {
					return cgroupDirs{version: 2, path: v2.Path, mem: dir, cpu: dir, base: base}, true
				}
			}
		}
	}
	return cgroupDirs{}, false
}

func escapes(cg *procfs.Cgroup) bool {
	return cg != nil && strings.Contains(cg.Path, "/..")
}

func pathIn(p string, own bool) string {
	if own {
		return "/"
	}
	return p
}

// readLimits reads the cgroup's memory limit (its own, or its ancestors'
// when smaller) and CPU quota.
func (d *cgroupDirs) readLimits(errs map[string]int) {
	d.memLimit = ownLimit(*d, errs)
	d.cpuQuota = 0
	switch {
	case d.version == 2:
		if b, err := os.ReadFile(filepath.Join(d.cpu, "cpu.max")); err == nil {
			d.cpuQuota = parseCPUMax(b)
		}
	case d.cpu != "":
		quota := readInt(filepath.Join(d.cpu, "cpu.cfs_quota_us"))
		period := readInt(filepath.Join(d.cpu, "cpu.cfs_period_us"))
		if quota > 0 && period > 0 {
			d.cpuQuota = float64(quota) / float64(period)
		}
	}
}

// read reads a cgroup file each cycle into the collector's buffer; the
// bytes are good until the next read.
func (c containerCollector) read(path string) ([]byte, error) {
	b, err := rawfile.Read(path, *c.buf)
	*c.buf = b
	return b, err
}

func (c containerCollector) readV2(d cgroupDirs, out *Container, errs map[string]int) {
	out.MemoryUsageBytes = c.readUint(filepath.Join(d.mem, "memory.current"), errs)
	if b, err := c.read(filepath.Join(d.mem, "memory.events")); err == nil {
		out.OOMKills, _ = keyed(b, "oom_kill")
	} else if !os.IsNotExist(err) {
		errs["cgroup"]++
	}
	if b, err := c.read(filepath.Join(d.cpu, "cpu.stat")); err == nil {
		out.CPUPeriods, _ = keyed(b, "nr_periods")
		out.CPUThrottledPeriods, _ = keyed(b, "nr_throttled")
		usec, _ := keyed(b, "throttled_usec")
		out.CPUThrottledSeconds = float64(usec) / 1e6
	}
}

func (c containerCollector) readV1(d cgroupDirs, out *Container, errs map[string]int) {
	out.MemoryUsageBytes = c.readUint(filepath.Join(d.mem, "memory.usage_in_bytes"), errs)
	if b, err := c.read(filepath.Join(d.mem, "memory.oom_control")); err == nil {
		out.OOMKills, _ = keyed(b, "oom_kill")
	}
	if d.cpu == "" {
		return
	}
	if b, err := c.read(filepath.Join(d.cpu, "cpu.stat")); err == nil {
		out.CPUPeriods, _ = keyed(b, "nr_periods")
		out.CPUThrottledPeriods, _ = keyed(b, "nr_throttled")
		ns, _ := keyed(b, "throttled_time")
		out.CPUThrottledSeconds = float64(ns) / 1e9
	}
}

// oomKills reads the OOM-kill count of a memory cgroup directory; ok is
// false when the cgroup is gone or the kernel does not count OOM kills.
func oomKills(version int, dir string) (uint64, bool) {
	name := "memory.oom_control"
	if version == 2 {
		name = "memory.events"
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0, false
	}
	return keyed(b, "oom_kill")
}

func limitFile(version int) string {
	if version == 2 {
		return "memory.max"
	}
	return "memory.limit_in_bytes"
}

// ownLimit reads the cgroup's own limit (which changes when a container is
// resized) and applies the ancestors' limit remembered from resolution.
func ownLimit(d cgroupDirs, errs map[string]int) uint64 {
	limit := d.parentLimit
	b, err := os.ReadFile(filepath.Join(d.mem, limitFile(d.version)))
	if err != nil {
		if !os.IsNotExist(err) {
			errs["cgroup"]++
		}
		return limit
	}
	if v, ok := parseLimit(b); ok && (limit == 0 || v < limit) {
		limit = v
	}
	return limit
}

// smallestLimit walks from dir up to base and returns the smallest memory
// limit set on the way; a child cgroup inherits its ancestors' limits
// without showing them.
func smallestLimit(dir, base, file string, errs map[string]int) uint64 {
	var limit uint64
	for {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err == nil {
			if v, ok := parseLimit(b); ok && (limit == 0 || v < limit) {
				limit = v
			}
		} else if !os.IsNotExist(err) {
			errs["cgroup"]++
		}
		if dir == base || len(dir) <= len(base) {
			return limit
		}
		dir = filepath.Dir(dir)
	}
}

// parseLimit reads a memory limit: "max" (v2) or a byte count, where cgroup
// v1 writes a value near 2^63 for "unlimited". ok is false for no limit.
func parseLimit(b []byte) (uint64, bool) {
	s := string(bytes.TrimSpace(b))
	if s == "max" || s == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v >= math.MaxInt64/2 {
		return 0, false
	}
	return v, true
}

// parseCPUMax reads cgroup v2 cpu.max ("$QUOTA $PERIOD" or "max $PERIOD") as
// cores; 0 means no quota.
func parseCPUMax(b []byte) float64 {
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return 0
	}
	q, err1 := strconv.ParseFloat(f[0], 64)
	p, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || p <= 0 || q < 0 {
		return 0
	}
	return q / p
}

// keyed returns the value of key in a file of "key value" lines
// (memory.events, cpu.stat, memory.oom_control, /proc/vmstat); false when
// no line has the key with a number.
func keyed(b []byte, key string) (uint64, bool) {
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(bytes.TrimSpace(line), []byte{' '})
		if !ok || string(k) != key {
			continue
		}
		if n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64); err == nil {
			return n, true
		}
	}
	return 0, false
}

func (c containerCollector) readUint(path string, errs map[string]int) uint64 {
	b, err := c.read(path)
	if err != nil {
		if !os.IsNotExist(err) {
			errs["cgroup"]++
		}
		return 0
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		errs["cgroup"]++
		return 0
	}
	return v
}

func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

func isDir(p string) bool  { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
func isFile(p string) bool { fi, err := os.Stat(p); return err == nil && !fi.IsDir() }

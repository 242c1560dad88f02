package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sparkdx/sparkdx/internal/jvm/attach"
)

// heapDumper dumps the heap of a JVM whose heap stays above its role's
// threshold for two consecutive samples: at most once per period for each
// JVM (another JVM near OOM on the same node — the driver beside an
// executor, two executors — is never held back by it), and only when the
// target directory has room for it beside the dumps still being written.
type heapDumper struct {
	at       float64
	atRole   map[Role]float64 // thresholds of roles that have their own
	apps     []string         // application ids or patterns; empty: all
	dir      string
	every    time.Duration
	jcmd     string // empty: attach in Go
	procRoot string
	timeout  time.Duration
	upload   dumpStore // nil: dumps stay on the node

	above    map[procKey]int
	last     map[procKey]time.Time // each JVM's last dump
	inflight map[procKey]uint64    // room the dumps being written need
	results  chan dumpResult       // dumps that finished, in the background
}

// dumpResult is the outcome of one background dump.
type dumpResult struct {
	key procKey
	ev  Event
}

func newHeapDumper(cfg Config) *heapDumper {
	return &heapDumper{at: cfg.HeapDumpAt, atRole: cfg.HeapDumpAtRole, apps: cfg.HeapDumpApps, dir: cfg.HeapDumpDir, every: cfg.HeapDumpEvery,
		jcmd: cfg.Jcmd, procRoot: cfg.ProcRoot, timeout: 10 * time.Minute, above: map[procKey]int{}, last: map[procKey]time.Time{},
		inflight: map[procKey]uint64{}, results: make(chan dumpResult, 64)}
}

// appMatches tells whether application id is one of apps (ids or
// path.Match patterns): any application when the list is empty.
func appMatches(apps []string, id string) bool {
	if len(apps) == 0 {
		return true
	}
	for _, pat := range apps {
		if ok, _ := path.Match(pat, id); ok {
			return true
		}
	}
	return false
}

// heapFill is the fill of the old generation when the JVM reports its
// maximum, else of the whole heap.
func heapFill(j *JVM) (used, max uint64) {
	if j.OldGenMaxBytes > 0 {
		return j.OldGenUsedBytes, j.OldGenMaxBytes
	}
	return j.HeapUsedBytes, j.HeapMaxBytes
}

// check counts consecutive samples above the threshold and dumps on the
// second. The dump runs in the background (writing a large heap takes
// minutes, and sampling goes on meanwhile); its event, with the path or why
// it failed, comes out of finished. A dump skipped for want of disk space
// is returned at once.
func (h *heapDumper) check(ctx context.Context, key procKey, p *Process, now time.Time) (Event, bool) {
	if p.JVM == nil {
		return Event{}, false
	}
	at := h.at
	if v, ok := h.atRole[p.Role]; ok {
		at = v
	}
	if !appMatches(h.apps, p.AppID) {
		at = 0
	}
	used, max := heapFill(p.JVM)
	if at <= 0 || max == 0 || float64(used)/float64(max) < at {
		delete(h.above, key)
		return Event{}, false
	}
	h.above[key]++
	if h.above[key] < 2 {
		return Event{}, false
	}
	if _, writing := h.inflight[key]; writing {
		return Event{}, false
	}
	if last, ok := h.last[key]; ok && now.Sub(last) < h.every {
		return Event{}, false // this JVM was dumped within the period
	}
	h.last[key] = now
	ev := Event{Type: EventHeapDump, Time: now.UnixMilli(), PID: p.PID, Role: p.Role, AppID: p.AppID,
		ExecutorID: p.ExecutorID, Detail: fmt.Sprintf("heap %d of %d bytes (%.0f%%)", used, max, 100*float64(used)/float64(max))}
	free, err := freeBytes(h.dir)
	if err != nil {
		ev.Detail = join(ev.Detail, err.Error())
		return ev, true
	}
	var reserved uint64
	for _, n := range h.inflight {
		reserved += n
	}
	need := p.JVM.HeapUsedBytes + p.JVM.HeapUsedBytes/4 + 64<<20
	if free < reserved+need {
		ev.Detail = join(ev.Detail, fmt.Sprintf("skipped: %s has %d bytes free (%d of them for dumps being written), dump needs about %d",
			h.dir, free, reserved, need))
		return ev, true
	}
	h.inflight[key] = need
	path := filepath.Join(h.dir, dumpName(p, now))
	pid, uid, gid := p.PID, p.UID, p.gid
	go func() {
		if err := h.dump(ctx, pid, uid, gid, path); err != nil {
			ev.Detail = join(ev.Detail, err.Error())
		} else {
			ev.HeapDump = path
			h.summarize(ctx, &ev)
		}
		h.results <- dumpResult{key, ev}
	}()
	return Event{}, false
}

// finished returns the background dumps that ended since the last call.
func (h *heapDumper) finished() []dumpResult {
	var out []dumpResult
	for {
		select {
		case r := <-h.results:
			delete(h.inflight, r.key)
			out = append(out, r)
		default:
			return out
		}
	}
}

// dump has the JVM write its heap to path (a path of the JVM's own mount
// namespace): through the attach protocol, or by running `jcmd <pid>
// GC.heap_dump <path>` as the JVM's user when a jcmd is configured
// (HotSpot's attach mechanism only answers its own user).
func (h *heapDumper) dump(ctx context.Context, pid, uid, gid int, path string) error {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	if h.jcmd == "" {
		vm, err := attach.Open(attach.Config{ProcRoot: h.procRoot}, pid)
		if err != nil {
			return err
		}
		out, err := vm.Jcmd(ctx, "GC.heap_dump "+path)
		if err != nil {
			return err
		}
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("attach: pid %d GC.heap_dump: %s", pid, strings.TrimSpace(out))
		}
		return nil
	}
	cmd := exec.CommandContext(ctx, h.jcmd, fmt.Sprint(pid), "GC.heap_dump", path)
	if os.Geteuid() == 0 && uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("jcmd %d GC.heap_dump: %w: %s", pid, err, strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("jcmd %d GC.heap_dump: %s", pid, strings.TrimSpace(string(out)))
	}
	return nil
}

func dumpName(p *Process, now time.Time) string {
	name := fmt.Sprintf("pid%d-%s.hprof", p.PID, now.UTC().Format("20060102T150405Z"))
	if p.AppID != "" {
		name = safeName(p.AppID) + "-" + safeName(p.ExecutorID) + "-" + name
	}
	return name
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

func freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("heap dump directory %s: %w", dir, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// forget drops what the dumper keeps about a process that is gone.
func (h *heapDumper) forget(key procKey) {
	delete(h.above, key)
	delete(h.last, key)
}

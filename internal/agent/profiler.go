package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sparkdx/sparkdx/internal/jvm/attach"
	"github.com/sparkdx/sparkdx/internal/profile"
)

// Suffixes of the files a scheduled recording writes; retention removes
// only files ending so, whatever else shares the directory.
const (
	ProfilePprofSuffix     = ".cpu.pb.gz"
	ProfileCollapsedSuffix = ".cpu.collapsed"
	// ProfileAllocSuffix is the allocation profile's (Config.ProfileAlloc).
	ProfileAllocSuffix = ".alloc.pb.gz"
)

// profiler records the node's drivers and executors on a schedule, one
// JVM at a time, with the recording code of `sparkdx profile`
// (profile.Record), and writes each recording's CPU profile as pprof and
// as collapsed stacks into a directory it keeps under a size bound.
type profiler struct {
	dir      string
	every    time.Duration
	duration time.Duration
	maxBytes int64
	apps     []string
	alloc    bool // also write the allocation samples
	procRoot string
	log      *slog.Logger

	// Touched by the profiling goroutine only.
	failed   map[procKey]bool // JVMs whose failure was logged once
	disabled map[procKey]bool // JVMs that disallow attach: not tried again

	mu    sync.Mutex
	stats ProfileStats
}

// ProfileStats are the scheduled recordings' cumulative counters.
type ProfileStats struct {
	Written, Failed uint64
	// CPUSeconds is the agent's own CPU time spent on recordings
	// (attach, thread dumps, reading, parsing and writing): the thread
	// that did the work, so sampling cycles running meanwhile are not
	// counted, nor the Go collector's background marking.
	CPUSeconds     float64
	LastCPUSeconds float64
	LastBytes      int64 // both files of the last recording
	Removed        uint64
	DirBytes       int64 // the profiles kept after the last recording
}

func newProfiler(cfg Config) *profiler {
	return &profiler{dir: cfg.ProfileDir, every: cfg.ProfileEvery, duration: cfg.ProfileDuration, maxBytes: cfg.ProfileMaxBytes,
		apps: cfg.ProfileApps, alloc: cfg.ProfileAlloc, procRoot: cfg.ProcRoot, log: cfg.Logger, failed: map[procKey]bool{}, disabled: map[procKey]bool{}}
}

// profileTarget is a JVM to record, as the last cycle saw it.
type profileTarget struct {
	key           procKey
	role          Role
	appID, execID string
}

// targets are the drivers and executors of the last snapshot whose
// hsperfdata was read (a JVM that answers attach) and whose application
// is one of apps.
func (pr *profiler) targets(s *Snapshot) []profileTarget {
	if s == nil {
		return nil
	}
	var out []profileTarget
	for i := range s.Processes {
		p := &s.Processes[i]
		if (p.Role != RoleDriver && p.Role != RoleExecutor) || p.JVM == nil || !appMatches(pr.apps, p.AppID) {
			continue
		}
		out = append(out, profileTarget{key: procKey{p.PID, p.startTicks}, role: p.Role, appID: p.AppID, execID: p.ExecutorID})
	}
	return out
}

// run records a round of JVMs every period until ctx ends; a round that
// outlasts the period is followed by the next at once.
func (pr *profiler) run(ctx context.Context, last func() *Snapshot) {
	for {
		start := time.Now()
		pr.round(ctx, pr.targets(last()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(start.Add(pr.every))):
		}
	}
}

// round records each target in turn. A failure is logged once per JVM
// and counted; it never stops the round.
func (pr *profiler) round(ctx context.Context, targets []profileTarget) {
	live := map[procKey]bool{}
	for _, t := range targets {
		live[t.key] = true
	}
	for k := range pr.failed {
		if !live[k] {
			delete(pr.failed, k)
			delete(pr.disabled, k)
		}
	}
	for _, t := range targets {
		if ctx.Err() != nil {
			return
		}
		if !pr.disabled[t.key] {
			pr.one(ctx, t)
		}
	}
}

// one records a JVM and writes its profile, measuring the CPU time the
// agent spent on it on a thread of its own.
func (pr *profiler) one(ctx context.Context, t profileTarget) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPUTime()
	files, size, err := pr.record(ctx, t, time.Now())
	cpu := threadCPUTime() - cpu0
	if err != nil && ctx.Err() != nil {
		return // the agent is stopping: not the JVM's failure
	}
	var removed int
	var kept int64
	if err == nil {
		removed, kept, err = pr.prune(files)
	}
	pr.mu.Lock()
	pr.stats.CPUSeconds += cpu.Seconds()
	if files == nil {
		pr.stats.Failed++
	} else {
		pr.stats.Written++
		pr.stats.LastCPUSeconds, pr.stats.LastBytes = cpu.Seconds(), size
		pr.stats.Removed += uint64(removed)
		pr.stats.DirBytes = kept
	}
	pr.mu.Unlock()
	attrs := []any{"pid", t.key.pid, "role", t.role, "app", t.appID, "executor", t.execID}
	if err != nil {
		if errors.Is(err, attach.ErrDisabled) {
			pr.disabled[t.key] = true
		}
		if !pr.failed[t.key] {
			pr.failed[t.key] = true
			pr.log.Warn("profile", append(attrs, "error", err)...)
		}
		return
	}
	pr.log.Info("profile", append(attrs, "files", strings.Join(files, ","), "bytes", size, "cpu", cpu.Round(time.Millisecond),
		"removed", removed)...)
}

// record takes one recording of t and writes its CPU profile (and its
// allocation profile when asked); files is nil when nothing was written.
func (pr *profiler) record(ctx context.Context, t profileTarget, now time.Time) (files []string, size int64, err error) {
	r, err := profile.Record(ctx, t.key.pid, profile.RecordOptions{ProcRoot: pr.procRoot, Duration: pr.duration})
	if err != nil {
		return nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		// Cut short by the agent stopping: every scheduled profile
		// covers its full duration, so that files compare.
		return nil, 0, err
	}
	outs := []profileOut{{ProfilePprofSuffix, profile.CPU, profile.WritePprof}, {ProfileCollapsedSuffix, profile.CPU, profile.WriteCollapsed}}
	kinds := []profile.Kind{profile.CPU}
	if pr.alloc {
		outs = append(outs, profileOut{ProfileAllocSuffix, profile.Alloc, profile.WritePprof})
		kinds = append(kinds, profile.Alloc)
	}
	ps, err := r.Profiles(kinds...)
	if err != nil {
		return nil, 0, fmt.Errorf("pid %d: %w", t.key.pid, err)
	}
	profiles := map[profile.Kind]*profile.Profile{}
	for i, p := range ps {
		p.Labels = []profile.Label{{Key: "app_id", Value: t.appID}, {Key: "executor_id", Value: t.execID}, {Key: "role", Value: string(t.role)}}
		profiles[kinds[i]] = p
	}
	stem := profileStem(t, now)
	for _, f := range outs {
		p := profiles[f.kind]
		n, err := writeFile(filepath.Join(pr.dir, stem+f.suffix), func(w io.Writer) error { return f.write(w, p) })
		if err != nil {
			for _, done := range files {
				os.Remove(filepath.Join(pr.dir, done))
			}
			return nil, 0, err
		}
		files = append(files, stem+f.suffix)
		size += n
	}
	return files, size, nil
}

// profileOut is a file a recording is written to: a kind of samples in
// a format.
type profileOut struct {
	suffix string
	kind   profile.Kind
	write  func(io.Writer, *profile.Profile) error
}

// profileStem names a recording by its JVM's application, executor (or
// role, without an application id), pid and time, as heap dumps are
// named: app-20260101000000-0042-3-pid4711-20261128T100000Z.
func profileStem(t profileTarget, now time.Time) string {
	who := string(t.role)
	if t.appID != "" {
		who = safeName(t.appID) + "-" + safeName(t.execID)
	}
	return fmt.Sprintf("%s-pid%d-%s", who, t.key.pid, now.UTC().Format("20060102T150405Z"))
}

// writeFile writes a file whole through a temporary name, so that a
// reader of the directory never meets half a profile.
func writeFile(path string, write func(io.Writer) error) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sparkdx-profile-*")
	if err != nil {
		return 0, fmt.Errorf("profile directory: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	fi, err := tmp.Stat()
	if err == nil {
		err = tmp.Chmod(0o640)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return fi.Size(), nil
}

// prune keeps the newest profiles that fit in maxBytes together and
// removes the rest (an older file never outlives a newer one); the files
// just written (keep) always stay, so the directory holds at least the
// last recording.
func (pr *profiler) prune(keep []string) (removed int, kept int64, err error) {
	entries, err := os.ReadDir(pr.dir)
	if err != nil {
		return 0, 0, fmt.Errorf("profile directory: %w", err)
	}
	type file struct {
		name string
		size int64
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ProfilePprofSuffix) && !strings.HasSuffix(name, ProfileCollapsedSuffix) &&
			!strings.HasSuffix(name, ProfileAllocSuffix) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, file{name, fi.Size(), fi.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Or(b.mod.Compare(a.mod), cmp.Compare(b.name, a.name)) })
	full := false
	for _, f := range files {
		full = full || kept+f.size > pr.maxBytes
		if !full || slices.Contains(keep, f.name) {
			kept += f.size
			continue
		}
		if err := os.Remove(filepath.Join(pr.dir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, kept, fmt.Errorf("profile retention: %w", err)
		}
		removed++
	}
	return removed, kept, nil
}

// Stats returns a copy of the counters.
func (pr *profiler) Stats() ProfileStats {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.stats
}

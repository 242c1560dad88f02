package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/procfs"
	"github.com/sparkdx/sparkdx/internal/redact"
)

// Config configures an Agent. The zero value of every field but Host has a
// working default (see withDefaults).
type Config struct {
	ProcRoot   string        // the /proc to read; a host's /proc mounted elsewhere in a DaemonSet
	CgroupRoot string        // cgroup mount; default /sys/fs/cgroup
	Host       string        // host label; default os.Hostname
	Interval   time.Duration // sampling interval; default 10s
	// PSSEvery is how long a process's proportional set size is reused
	// before smaps_rollup is read again; default 1m, negative: every cycle.
	PSSEvery time.Duration

	// HeapDumpAt, when above 0, asks for one heap dump per JVM whose old
	// generation (or whole heap) stays above this fraction of its maximum
	// for two consecutive samples.
	HeapDumpAt float64
	// HeapDumpAtRole overrides HeapDumpAt for a role (a driver, whose
	// loss ends the application, dumped earlier than executors; 0: never).
	HeapDumpAtRole map[Role]float64
	HeapDumpDir    string
	// HeapDumpApps, when not empty, limits dumps to the JVMs of these
	// applications (ids or path.Match patterns: app-2026*): a platform
	// engineer chasing one application's OOM leaves the rest of the node
	// alone.
	HeapDumpApps  []string
	HeapDumpEvery time.Duration // at most one dump of a JVM per this period; default 10m
	// Jcmd, when set, is a jcmd program run for heap dumps; empty (the
	// default): the agent speaks HotSpot's attach protocol itself.
	Jcmd string
	// HeapDumpUpload, when set (s3://bucket/prefix, abfss://, wasbs://,
	// az:// or gs:// — newDumpStore), is where each dump is copied once
	// written: a dump written on a node, or inside a container that is
	// about to die, reaches a person that way.
	HeapDumpUpload string
	Stores         Stores // for HeapDumpUpload

	// SparkREST, when above 0, is how often each driver's REST API (its
	// UI port, found from its listening sockets) is read for its
	// executors' memory; 0 never reads it. SparkRESTTimeout bounds each
	// request; default 5s (Spark starts its REST API on the first
	// request: seconds). Polls run beside the cycles, never delaying one.
	SparkREST        time.Duration
	SparkRESTTimeout time.Duration

	// ProfileEvery, when above 0, records every driver and executor JVM
	// (of ProfileApps, ids or patterns, when set) for ProfileDuration
	// (default 30s) once per this period, one JVM at a time, through the
	// attach protocol as `sparkdx profile` does, and writes each
	// recording's CPU profile into ProfileDir as pprof and collapsed
	// stacks. ProfileMaxBytes (default 256 MiB) bounds what the directory
	// keeps: the oldest profiles are removed past it. ProfileAlloc also
	// writes each recording's allocation samples (jdk.ObjectAllocationSample,
	// bytes by stack) as APP-EXEC-pidN-TIME.alloc.pb.gz: the recording's
	// settings sample allocations whether or not, so it costs the JVM
	// nothing more, the agent a second profile to build and write.
	ProfileEvery    time.Duration
	ProfileDuration time.Duration
	ProfileDir      string
	ProfileApps     []string
	ProfileMaxBytes int64
	ProfileAlloc    bool

	// Redaction is applied to every command line the agent keeps,
	// before it keeps it (redact.Rules.Args); nil means redact.Default().
	// The environment is read for three ids only (SPARK_APPLICATION_ID,
	// SPARK_EXECUTOR_ID, CONTAINER_ID) and nothing else of it is kept.
	Redaction *redact.Rules

	Logger *slog.Logger
}

// Validate reports a configuration the agent cannot run with.
func (c Config) Validate() error {
	if c.Interval < 0 {
		return fmt.Errorf("interval %v: must be positive", c.Interval)
	}
	if c.HeapDumpAt < 0 || c.HeapDumpAt >= 1 {
		return fmt.Errorf("heap dump threshold %v: must be above 0 and below 1", c.HeapDumpAt)
	}
	for role, at := range c.HeapDumpAtRole {
		if at < 0 || at >= 1 {
			return fmt.Errorf("heap dump threshold %v for %s: must be above 0 and below 1", at, role)
		}
	}
	if c.dumps() && c.HeapDumpDir == "" {
		return errors.New("heap dump threshold set without a heap dump directory")
	}
	if c.HeapDumpDir != "" && !filepath.IsAbs(c.HeapDumpDir) {
		return fmt.Errorf("heap dump directory %s: must be absolute (the JVM writes it)", c.HeapDumpDir)
	}
	for _, pat := range c.HeapDumpApps {
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("heap dump application %q: %v", pat, err)
		}
	}
	if c.SparkREST < 0 || c.SparkRESTTimeout < 0 {
		return fmt.Errorf("spark REST interval %v, timeout %v: must not be negative", c.SparkREST, c.SparkRESTTimeout)
	}
	if err := c.validateProfile(); err != nil {
		return err
	}
	if c.HeapDumpUpload != "" {
		if c.HeapDumpDir == "" {
			return errors.New("heap dump upload set without a heap dump directory")
		}
		if err := validUploadURL(c.HeapDumpUpload); err != nil {
			return fmt.Errorf("heap dump upload %s: %w", c.HeapDumpUpload, err)
		}
	}
	return nil
}

// validateProfile checks the scheduled recordings' settings.
func (c Config) validateProfile() error {
	switch {
	case c.ProfileEvery < 0 || c.ProfileDuration < 0 || c.ProfileMaxBytes < 0:
		return fmt.Errorf("profile every %v, duration %v, max bytes %d: must not be negative", c.ProfileEvery, c.ProfileDuration, c.ProfileMaxBytes)
	case c.ProfileEvery == 0:
		return nil
	case c.ProfileDir == "":
		return errors.New("profiles scheduled without a profile directory")
	case c.withDefaults().ProfileDuration >= c.ProfileEvery:
		return fmt.Errorf("profile duration %v: must be shorter than the period %v", c.withDefaults().ProfileDuration, c.ProfileEvery)
	}
	for _, pat := range c.ProfileApps {
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("profile application %q: %v", pat, err)
		}
	}
	if fi, err := os.Stat(c.ProfileDir); err != nil || !fi.IsDir() {
		return fmt.Errorf("profile directory %s: not a directory (%v)", c.ProfileDir, err)
	}
	return nil
}

// dumps tells whether any role's heap is to be dumped.
func (c Config) dumps() bool {
	if c.HeapDumpAt > 0 {
		return true
	}
	for _, at := range c.HeapDumpAtRole {
		if at > 0 {
			return true
		}
	}
	return false
}

func (c Config) withDefaults() Config {
	if c.ProcRoot == "" {
		c.ProcRoot = "/proc"
	}
	if c.CgroupRoot == "" {
		c.CgroupRoot = "/sys/fs/cgroup"
	}
	if c.Host == "" {
		c.Host, _ = os.Hostname()
	}
	if c.Interval == 0 {
		c.Interval = 10 * time.Second
	}
	if c.PSSEvery == 0 {
		c.PSSEvery = time.Minute
	}
	if c.HeapDumpEvery == 0 {
		c.HeapDumpEvery = 10 * time.Minute
	}
	if c.ProfileDuration == 0 {
		c.ProfileDuration = 30 * time.Second
	}
	if c.ProfileMaxBytes == 0 {
		c.ProfileMaxBytes = 256 << 20
	}
	if c.SparkRESTTimeout == 0 {
		c.SparkRESTTimeout = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Redaction == nil {
		c.Redaction = redact.Default()
	}
	return c
}

// procKey names a process across cycles; the start time guards against pid
// reuse.
type procKey struct {
	pid   int
	start uint64
}

// Agent samples the Spark processes of one node. Sample is not safe for
// concurrent use; Last and Totals are.
type Agent struct {
	cfg   Config
	fs    procfs.FS
	cont  containerCollector
	jvm   jvmCollector
	dumps *heapDumper
	prof  *profiler  // nil when off
	rest  *sparkREST // nil when off
	files *procReader

	scan     *scanner
	prev     map[procKey]Process
	prevNode Node
	dumped   map[procKey]string // heap dump paths, carried into exit events

	// clock is the time of a cycle; time.Now but in benchmarks that
	// simulate hours of ten-second cycles.
	clock func() time.Time

	mu     sync.Mutex
	last   *Snapshot
	errors map[string]uint64 // cumulative, by source
	exits  map[exitKey]uint64
	recent []Event // the last maxRecent events, oldest first
	cycles uint64
	cpu    time.Duration
}

type exitKey struct {
	role  Role
	cause string
}

// New checks the configuration and opens the /proc tree.
func New(cfg Config) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	fs, err := procfs.NewFS(cfg.ProcRoot)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.ProcRoot, err)
	}
	a := &Agent{
		cfg:    cfg,
		fs:     fs,
		cont:   containerCollector{root: cfg.CgroupRoot, procRoot: cfg.ProcRoot, buf: new([]byte)},
		jvm:    jvmCollector{procRoot: cfg.ProcRoot},
		files:  newProcReader(cfg.ProcRoot),
		prev:   map[procKey]Process{},
		dumped: map[procKey]string{},
		errors: map[string]uint64{},
		exits:  map[exitKey]uint64{},
	}
	a.scan = newScanner(fs, a.files, cfg.Redaction)
	if cfg.SparkREST > 0 {
		a.rest = newSparkREST(cfg.ProcRoot, cfg.SparkREST, cfg.SparkRESTTimeout)
	}
	if cfg.ProfileEvery > 0 {
		a.prof = newProfiler(cfg)
	}
	if cfg.dumps() {
		a.dumps = newHeapDumper(cfg)
		if cfg.HeapDumpUpload != "" {
			up, err := newDumpStore(cfg.HeapDumpUpload, cfg.Stores)
			if err != nil {
				return nil, err
			}
			a.dumps.upload = up
		}
	}
	return a, nil
}

func (a *Agent) now() time.Time {
	if a.clock != nil {
		return a.clock()
	}
	return time.Now()
}

// Sample runs one cycle: discovery, every collector, exit events and the
// heap-dump check. Only an unreadable /proc is an error; a process that
// cannot be read in full is reported with what could be read.
func (a *Agent) Sample(ctx context.Context) (*Snapshot, error) {
	startCPU := cpuTime()
	errs := map[string]int{}
	now := a.now()
	node, err := collectNode(a.fs, a.cfg.ProcRoot, errs)
	if err != nil {
		return nil, err
	}
	t, err := a.scan.scan(errs)
	if err != nil {
		return nil, err
	}
	pc := processCollector{pageSize: uint64(os.Getpagesize()), bootTime: node.BootTime, now: now, pssEvery: a.cfg.PSSEvery,
		files: a.files}
	snap := &Snapshot{Host: a.cfg.Host, Time: now.UnixMilli(), Node: node, Processes: []Process{}}
	seen := make(map[procKey]Process, len(a.prev))
	cgroups := map[[2]string]Container{}
	for _, f := range discover(t) {
		k := f.info.known
		if !k.env && k.id.needsEnviron() {
			k.env = true
			if env, err := f.info.proc.Environ(); err == nil {
				k.id.fromEnviron(env)
			} else {
				errs["environ"]++
			}
			f.id = k.id
		}
		if k.id.Role == RoleDriver && k.id.AppID == "" && k.fdTries < appIDTries {
			// A client-mode driver (spark-submit, python job.py) has its
			// id on no command line or environment: its event log names it.
			k.fdTries++
			if targets, err := f.info.proc.FileDescriptorTargets(); err == nil {
				k.id.AppID = appFromOpenFiles(targets)
				f.id = k.id
			} else {
				errs["fd targets"]++
			}
		}
		p := pc.collect(f, errs)
		p.Container = a.cont.collect(f.info.proc, k, now, cgroups, errs)
		p.JVM, p.JVMUnavailable = a.jvm.collect(p.PID, p.StartTime, k, errs)
		key := procKey{p.PID, p.startTicks}
		if a.rest != nil && p.Role == RoleDriver {
			p.Spark = a.rest.driver(key, k.argv, now)
		}
		if a.dumps != nil {
			if ev, ok := a.dumps.check(ctx, key, &p, now); ok {
				snap.Events = append(snap.Events, ev)
			}
		}
		seen[key] = p
		snap.Processes = append(snap.Processes, p)
	}
	if a.dumps != nil {
		a.finishedDumps(snap, seen)
	}
	if a.rest != nil {
		a.rest.cycleDone(seen, errs)
	}
	a.files.sweep()
	snap.Events = append(snap.Events, a.exitEvents(seen, node, now)...)
	if len(errs) > 0 {
		snap.Errors = errs
	}
	a.prev, a.prevNode = seen, node

	a.mu.Lock()
	defer a.mu.Unlock()
	for k, v := range errs {
		a.errors[k] += uint64(v)
	}
	for _, ev := range snap.Events {
		if ev.Type == EventExit {
			a.exits[exitKey{ev.Role, ev.Cause}]++
		}
	}
	a.recent = append(a.recent, snap.Events...)
	if n := len(a.recent) - maxRecent; n > 0 {
		a.recent = append([]Event(nil), a.recent[n:]...)
	}
	a.last = snap
	a.cycles++
	a.cpu += cpuTime() - startCPU
	return snap, nil
}

// finishedDumps reports the heap dumps that ended since the last cycle and
// remembers their paths for the exit events of processes still known.
func (a *Agent) finishedDumps(snap *Snapshot, seen map[procKey]Process) {
	for _, r := range a.dumps.finished() {
		snap.Events = append(snap.Events, r.ev)
		if r.ev.HeapDump == "" {
			continue
		}
		_, now := seen[r.key]
		_, before := a.prev[r.key]
		if now || before {
			a.dumped[r.key] = r.ev.HeapDump
		}
		for i := range snap.Processes {
			if p := &snap.Processes[i]; p.PID == r.key.pid && p.startTicks == r.key.start {
				p.HeapDump = r.ev.HeapDump
			}
		}
	}
}

// Run samples every interval until ctx ends, handing each snapshot to
// onSample. A failed cycle is logged and the loop carries on. Scheduled
// recordings (Config.ProfileEvery) run beside the cycles from the first
// snapshot on, and Run returns once the one in flight has stopped.
func (a *Agent) Run(ctx context.Context, onSample func(*Snapshot)) error {
	tick := time.NewTicker(a.cfg.Interval)
	defer tick.Stop()
	var profiling sync.WaitGroup
	defer profiling.Wait()
	profiled := false
	for {
		snap, err := a.Sample(ctx)
		if err != nil {
			a.cfg.Logger.Error("sample", "error", err)
		} else {
			for _, ev := range snap.Events {
				a.cfg.Logger.Info("event", "type", ev.Type, "pid", ev.PID, "role", ev.Role, "app", ev.AppID,
					"executor", ev.ExecutorID, "cause", ev.Cause, "heapDump", ev.HeapDump, "detail", ev.Detail)
			}
			if onSample != nil {
				onSample(snap)
			}
			if a.prof != nil && !profiled {
				profiled = true
				profiling.Go(func() { a.prof.run(ctx, a.Last) })
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// WaitSparkREST waits for the drivers' REST reads in flight (Config.SparkREST),
// whose answers the next cycle reports: `agent --once` samples again after it.
func (a *Agent) WaitSparkREST() {
	if a.rest != nil {
		a.rest.wait()
	}
}

// Last returns the most recent snapshot, or nil before the first cycle.
func (a *Agent) Last() *Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// maxRecent is how many events Events keeps.
const maxRecent = 200

// Events returns the most recent events (exits, heap dumps), oldest first.
func (a *Agent) Events() []Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Event{}, a.recent...)
}

// Stats are the agent's own cumulative counters.
type Stats struct {
	Cycles     uint64
	CPUSeconds float64
	Errors     map[string]uint64
	Exits      map[Role]map[string]uint64 // by role, then cause
	Profile    *ProfileStats              // nil when recordings are off
}

// Stats returns a copy of the agent's cumulative counters.
func (a *Agent) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := Stats{Cycles: a.cycles, CPUSeconds: a.cpu.Seconds(), Errors: map[string]uint64{}, Exits: map[Role]map[string]uint64{}}
	for k, v := range a.errors {
		s.Errors[k] = v
	}
	if a.prof != nil {
		ps := a.prof.Stats()
		s.Profile = &ps
	}
	for k, v := range a.exits {
		if s.Exits[k.role] == nil {
			s.Exits[k.role] = map[string]uint64{}
		}
		s.Exits[k.role][k.cause] = v
	}
	return s
}

package hsperf

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// JVM is the typed view of a snapshot: what sparkdx reports about a JVM.
// Counters a JVM does not publish are left zero; which ones exist depends on
// the collector and the JDK release (JDK 25 dropped sun.os.hrt.ticks, ZGC
// on JDK 17 has only generation 1, and so on).
type JVM struct {
	PID int
	// VM identity, from java.property.* and java.rt.*.
	VMName, VMVendor, VMVersion, JavaVersion, JavaHome, ClassPath string
	// Command is sun.rt.javaCommand: the main class or -jar file, then the
	// program's arguments. MainClass and Args split it on spaces, as the JVM
	// joined them (arguments with spaces cannot be told apart).
	Command   string
	MainClass string
	Args      []string
	// JVMArgs is java.rt.vmArgs (the -X/-D options), VMFlags the flags
	// given in a .hotspotrc or -XX:Flags file.
	JVMArgs, VMFlags string

	// StartTime is when the VM began to be created (sun.rt.createVmBeginTime).
	StartTime time.Time
	// Uptime is sun.os.hrt.ticks converted; zero on JDKs without it
	// (JDK 25), where time.Since(StartTime) is the measure left.
	Uptime time.Duration

	// Collector is sun.gc.policy.name ("Copy:MSC", "GarbageFirst", ...),
	// empty for ZGC.
	Collector    string
	GCCause      string // sun.gc.cause: the collection in progress, "No GC" when none
	GCLastCause  string // sun.gc.lastCause
	Collectors   []Collector
	Generations  []Generation
	Metaspace    Pool
	ClassSpace   Pool // compressed class space; zero without compressed class pointers
	Classes      Classes
	Threads      Threads
	Safepoints   Safepoints
	JIT          JIT
	GCThreadsCPU time.Duration // sun.threads.total_gc_cpu_time: CPU of GC threads (in JDK 25, not 17)

	Heap Heap
}

// GCKind classifies a collector the way jstat's columns do.
type GCKind string

// Collector kinds: YGC, FGC and CGC in jstat -gc.
const (
	GCYoung      GCKind = "young"
	GCFull       GCKind = "full"
	GCConcurrent GCKind = "concurrent"
)

// Collector is one sun.gc.collector.N.
type Collector struct {
	Index       int
	Name        string
	Kind        GCKind
	Invocations int64
	// Time is the total time the collector counts: for ZGC, Shenandoah
	// and G1's concurrent cycles only their pauses, not the concurrent
	// work. LastEntry and LastExit are when the last collection began and
	// ended, measured from JVM start.
	Time, LastEntry, LastExit time.Duration
}

// GCTime is the time of all collectors, jstat's GCT.
func (j *JVM) GCTime() time.Duration {
	var d time.Duration
	for _, c := range j.Collectors {
		d += c.Time
	}
	return d
}

// GCCount is the number of collections of all collectors.
func (j *JVM) GCCount() int64 {
	var n int64
	for _, c := range j.Collectors {
		n += c.Invocations
	}
	return n
}

// Generation is one sun.gc.generation.N with its spaces.
type Generation struct {
	Index                              int
	Name                               string
	Capacity, MinCapacity, MaxCapacity int64
	Spaces                             []Space
}

// Used is the sum of the generation's spaces' used bytes.
func (g *Generation) Used() int64 {
	var n int64
	for _, s := range g.Spaces {
		n += s.Used
	}
	return n
}

// Space is one sun.gc.generation.N.space.M.
type Space struct {
	Index                                     int
	Name                                      string
	Used, Capacity, MaxCapacity, InitCapacity int64
}

// Pool is metaspace or compressed class space.
type Pool struct {
	Used, Capacity, MinCapacity, MaxCapacity int64
}

// Classes are class-loading counters. Loaded and Unloaded include classes
// from the CDS archive, as jstat -class counts them; Loaded-Unloaded is the
// number loaded now.
type Classes struct {
	Loaded, Unloaded             int64
	SharedLoaded, SharedUnloaded int64
	LoadedBytes, UnloadedBytes   int64
	LoadTime                     time.Duration
}

// Threads are java.threads.*.
type Threads struct {
	Live, Daemon, Peak, Started int64
}

// Safepoints are sun.rt.safepoint*: how often all Java threads were
// stopped, how long the VM operations ran (Time) and how long it took to
// bring the threads to a stop (SyncTime, not part of Time).
type Safepoints struct {
	Count          int64
	Time, SyncTime time.Duration
}

// JIT are compiler counters. HotSpot publishes no code cache gauge in
// hsperfdata (codeCache.cpp creates no PerfData; the code heaps are seen
// through JMX or jcmd Compiler.codecache) and no "compilation disabled"
// state (CompileBroker's _should_compile_new_jobs and stopped count are
// plain fields): what there is are cumulative compiler counters and the
// -XX:ReservedCodeCacheSize the JVM was started with.
type JIT struct {
	CompileTime   time.Duration // java.ci.totalTime
	Compiles      int64         // sun.ci.totalCompiles
	Bailouts      int64         // sun.ci.totalBailouts
	Invalidations int64         // sun.ci.totalInvalidates
	// CodeBytes is sun.ci.nmethodCodeSize: machine code bytes of every
	// method compiled since start, summed; it never falls when the code
	// cache flushes methods, so it is the rate of code put into the cache.
	CodeBytes int64
	// NMethodBytes is sun.ci.nmethodSize: the same with each compiled
	// method's metadata (relocations, scopes, oops).
	NMethodBytes int64
	// LastFailedMethod is sun.ci.lastFailedMethod: the last compilation
	// that bailed out ("" when none did).
	LastFailedMethod string
	// ReservedCodeCache is -XX:ReservedCodeCacheSize from the JVM's
	// arguments (java.rt.vmArgs, JAVA_TOOL_OPTIONS included), in bytes; 0 when the JVM chose its default
	// (240 MiB with tiered compilation on JDK 17).
	ReservedCodeCache int64
}

// Heap are totals over the generations, and the old generation on its own
// (the one that fills up before an OutOfMemoryError).
type Heap struct {
	Used, Committed, Max int64
	OldUsed, OldMax      int64
	// Shared is true for collectors whose generations share one heap (G1,
	// ZGC), where each generation may grow to all of it.
	Shared bool
}

// OldRatio is OldUsed/OldMax, or 0 when OldMax is unknown.
func (h Heap) OldRatio() float64 {
	if h.OldMax <= 0 {
		return 0
	}
	return float64(h.OldUsed) / float64(h.OldMax)
}

// UsedRatio is Used/Max, or 0 when Max is unknown.
func (h Heap) UsedRatio() float64 {
	if h.Max <= 0 {
		return 0
	}
	return float64(h.Used) / float64(h.Max)
}

// Duration converts a counter in hrt ticks to a duration using
// sun.os.hrt.frequency; it is 0 without a frequency.
func (s *Snapshot) Duration(ticks int64) time.Duration {
	hz, _ := s.Long("sun.os.hrt.frequency")
	return ticksToDuration(ticks, hz)
}

func ticksToDuration(ticks, hz int64) time.Duration {
	if hz <= 0 {
		return 0
	}
	// Split to avoid overflowing ticks*1e9 (a nanosecond clock passes
	// 2^63/1e9 ticks after 9 s).
	sec, rem := ticks/hz, ticks%hz
	return time.Duration(sec)*time.Second + time.Duration(rem*int64(time.Second)/hz)
}

// JVM returns the typed view of the snapshot.
func (s *Snapshot) JVM() JVM {
	hz, _ := s.Long("sun.os.hrt.frequency")
	long := func(name string) int64 { v, _ := s.Long(name); return v }
	str := func(name string) string { v, _ := s.String(name); return v }
	dur := func(name string) time.Duration { return ticksToDuration(long(name), hz) }

	j := JVM{
		PID:          s.PID,
		VMName:       str("java.property.java.vm.name"),
		VMVendor:     str("java.property.java.vm.vendor"),
		VMVersion:    str("java.property.java.vm.version"),
		JavaVersion:  str("java.property.java.version"),
		JavaHome:     str("java.property.java.home"),
		ClassPath:    str("java.property.java.class.path"),
		Command:      str("sun.rt.javaCommand"),
		JVMArgs:      str("java.rt.vmArgs"),
		VMFlags:      str("java.rt.vmFlags"),
		Uptime:       dur("sun.os.hrt.ticks"),
		Collector:    str("sun.gc.policy.name"),
		GCCause:      str("sun.gc.cause"),
		GCLastCause:  str("sun.gc.lastCause"),
		GCThreadsCPU: dur("sun.threads.total_gc_cpu_time"),
		Metaspace:    s.pool("sun.gc.metaspace."),
		ClassSpace:   s.pool("sun.gc.compressedclassspace."),
		Classes: Classes{
			Loaded:         long("java.cls.loadedClasses") + long("java.cls.sharedLoadedClasses"),
			Unloaded:       long("java.cls.unloadedClasses") + long("java.cls.sharedUnloadedClasses"),
			SharedLoaded:   long("java.cls.sharedLoadedClasses"),
			SharedUnloaded: long("java.cls.sharedUnloadedClasses"),
			LoadedBytes:    long("sun.cls.loadedBytes") + long("sun.cls.sharedLoadedBytes"),
			UnloadedBytes:  long("sun.cls.unloadedBytes") + long("sun.cls.sharedUnloadedBytes"),
			LoadTime:       dur("sun.cls.time"),
		},
		Threads: Threads{
			Live:    long("java.threads.live"),
			Daemon:  long("java.threads.daemon"),
			Peak:    long("java.threads.livePeak"),
			Started: long("java.threads.started"),
		},
		Safepoints: Safepoints{
			Count:    long("sun.rt.safepoints"),
			Time:     dur("sun.rt.safepointTime"),
			SyncTime: dur("sun.rt.safepointSyncTime"),
		},
		JIT: JIT{
			CompileTime:      dur("java.ci.totalTime"),
			Compiles:         long("sun.ci.totalCompiles"),
			Bailouts:         long("sun.ci.totalBailouts"),
			Invalidations:    long("sun.ci.totalInvalidates"),
			CodeBytes:        long("sun.ci.nmethodCodeSize"),
			NMethodBytes:     long("sun.ci.nmethodSize"),
			LastFailedMethod: str("sun.ci.lastFailedMethod"),
		},
	}
	if ms, ok := s.Long("sun.rt.createVmBeginTime"); ok && ms > 0 {
		j.StartTime = time.UnixMilli(ms)
	}
	if f := strings.Fields(j.Command); len(f) > 0 {
		j.MainClass, j.Args = f[0], f[1:]
	}
	j.JIT.ReservedCodeCache = xxSize(j.JVMArgs, "ReservedCodeCacheSize")
	j.Collectors, j.Generations = s.gc(hz)
	j.Heap = heapTotals(j.Collector, j.Collectors, j.Generations)
	return j
}

func (s *Snapshot) pool(prefix string) Pool {
	long := func(name string) int64 { v, _ := s.Long(prefix + name); return v }
	return Pool{
		Used:        long("used"),
		Capacity:    long("capacity"),
		MinCapacity: long("minCapacity"),
		MaxCapacity: long("maxCapacity"),
	}
}

// gcCounters gathers sun.gc.collector.N.* and sun.gc.generation.N[.space.M].*
// whatever indexes the collector publishes: ZGC on JDK 17 has only
// generation 1 and collector 2, Shenandoah a generation without spaces.
type gcCounters struct {
	hz     int64
	cols   map[int]*Collector
	gens   map[int]*Generation
	spaces map[[2]int]*Space
}

// gc collects the collectors and generations in one pass over the entries.
func (s *Snapshot) gc(hz int64) ([]Collector, []Generation) {
	c := gcCounters{hz: hz, cols: map[int]*Collector{}, gens: map[int]*Generation{}, spaces: map[[2]int]*Space{}}
	for i := range s.Entries {
		e := &s.Entries[i]
		if rest, ok := strings.CutPrefix(e.Name, "sun.gc.collector."); ok {
			c.collector(rest, e)
		} else if rest, ok := strings.CutPrefix(e.Name, "sun.gc.generation."); ok {
			c.generation(rest, e)
		}
	}
	return c.sorted()
}

func (c *gcCounters) collector(rest string, e *Entry) {
	n, field, ok := cutIndex(rest)
	if !ok {
		return
	}
	col := c.cols[n]
	if col == nil {
		col = &Collector{Index: n}
		c.cols[n] = col
	}
	switch field {
	case "name":
		col.Name = e.Text
	case "invocations":
		col.Invocations = e.Long
	case "time":
		col.Time = ticksToDuration(e.Long, c.hz)
	case "lastEntryTime":
		col.LastEntry = ticksToDuration(e.Long, c.hz)
	case "lastExitTime":
		col.LastExit = ticksToDuration(e.Long, c.hz)
	}
}

func (c *gcCounters) generation(rest string, e *Entry) {
	n, field, ok := cutIndex(rest)
	if !ok {
		return
	}
	g := c.gens[n]
	if g == nil {
		g = &Generation{Index: n}
		c.gens[n] = g
	}
	if rest, ok := strings.CutPrefix(field, "space."); ok {
		c.space(n, rest, e)
		return
	}
	switch field {
	case "name":
		g.Name = e.Text
	case "capacity":
		g.Capacity = e.Long
	case "minCapacity":
		g.MinCapacity = e.Long
	case "maxCapacity":
		g.MaxCapacity = e.Long
	}
}

func (c *gcCounters) space(gen int, rest string, e *Entry) {
	m, field, ok := cutIndex(rest)
	if !ok {
		return
	}
	key := [2]int{gen, m}
	sp := c.spaces[key]
	if sp == nil {
		sp = &Space{Index: m}
		c.spaces[key] = sp
	}
	switch field {
	case "name":
		sp.Name = e.Text
	case "used":
		sp.Used = e.Long
	case "capacity":
		sp.Capacity = e.Long
	case "maxCapacity":
		sp.MaxCapacity = e.Long
	case "initCapacity":
		sp.InitCapacity = e.Long
	}
}

// sorted returns collectors, generations and spaces in index order.
func (c *gcCounters) sorted() ([]Collector, []Generation) {
	for k, sp := range c.spaces {
		g := c.gens[k[0]]
		g.Spaces = append(g.Spaces, *sp)
	}
	cs := make([]Collector, 0, len(c.cols))
	for _, col := range c.cols {
		col.Kind = gcKind(col.Index, col.Name)
		cs = append(cs, *col)
	}
	sort.Slice(cs, func(a, b int) bool { return cs[a].Index < cs[b].Index })
	gs := make([]Generation, 0, len(c.gens))
	for _, g := range c.gens {
		sort.Slice(g.Spaces, func(a, b int) bool { return g.Spaces[a].Index < g.Spaces[b].Index })
		gs = append(gs, *g)
	}
	sort.Slice(gs, func(a, b int) bool { return gs[a].Index < gs[b].Index })
	return cs, gs
}

// cutIndex splits "3.rest" into 3 and "rest".
func cutIndex(s string) (int, string, bool) {
	num, rest, ok := strings.Cut(s, ".")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, rest, true
}

// gcKind classifies a collector by its name as HotSpot releases spell it
// ("Serial young collection pauses", "PSScavenge", "G1 incremental
// collections", "ZGC major collection pauses", ...), falling back on the
// index jstat uses: 0 young, 1 full, 2 concurrent.
func gcKind(index int, name string) GCKind {
	n := strings.ToLower(name)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(n, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("concurrent", "major"):
		return GCConcurrent
	case has("full", "msc", "compact", "marksweep", "mark sweep"):
		return GCFull
	case has("young", "minor", "copy", "scavenge", "incremental", "parnew", "partial"):
		return GCYoung
	}
	switch index {
	case 0:
		return GCYoung
	case 1:
		return GCFull
	}
	return GCConcurrent
}

// heapTotals sums the generations. G1 and ZGC publish every generation
// with the whole heap as its maximum, so there the maximum is the largest,
// not the sum.
func heapTotals(policy string, cols []Collector, gens []Generation) Heap {
	var h Heap
	h.Shared = policy == "GarbageFirst"
	for _, c := range cols {
		if strings.HasPrefix(c.Name, "Z ") || strings.HasPrefix(c.Name, "ZGC ") {
			h.Shared = true
		}
	}
	for i := range gens {
		g := &gens[i]
		h.Used += g.Used()
		h.Committed += g.Capacity
		if h.Shared {
			h.Max = max(h.Max, g.MaxCapacity)
		} else {
			h.Max += g.MaxCapacity
		}
	}
	if old := oldGeneration(gens); old != nil {
		h.OldUsed = old.Used()
		h.OldMax = old.MaxCapacity
	}
	return h
}

// oldGeneration is the generation named "old", else the last one (as
// Shenandoah's single "Heap").
func oldGeneration(gens []Generation) *Generation {
	for i := range gens {
		if strings.EqualFold(gens[i].Name, "old") {
			return &gens[i]
		}
	}
	for i := len(gens) - 1; i >= 0; i-- {
		if gens[i].MaxCapacity > 0 {
			return &gens[i]
		}
	}
	return nil
}

// xxSize reads the last -XX:name=size in args (the JVM keeps the last
// one); 0 when absent or unreadable. It runs on every reading of every
// JVM, so it searches from the end instead of splitting the arguments.
func xxSize(args, name string) int64 {
	opt := "-XX:" + name + "="
	for end := len(args); ; {
		i := strings.LastIndex(args[:end], opt)
		if i < 0 {
			return 0
		}
		if i > 0 && args[i-1] > ' ' { // inside another argument
			end = i
			continue
		}
		v := args[i+len(opt):]
		if j := strings.IndexFunc(v, unicode.IsSpace); j >= 0 {
			v = v[:j]
		}
		size, _ := jvmSize(v)
		return size
	}
}

// jvmSize reads a size as HotSpot's options write it: a number of bytes
// with an optional k, m, g or t suffix (either case).
func jvmSize(v string) (int64, bool) {
	mult := int64(1)
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			v = v[:n-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}

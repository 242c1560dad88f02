package profile

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sparkdx/sparkdx/internal/jfr"
	"github.com/sparkdx/sparkdx/internal/jvm/attach"
)

// RecordOptions says how to record one JVM.
type RecordOptions struct {
	ProcRoot string        // default /proc
	Duration time.Duration // default 30s
	// Settings is the JFR settings the JVM applies: "profile" (the
	// default: CPU samples every 10 ms, native every 20 ms, allocation
	// samples throttled to 300/s) or "default" (20 ms, 150/s), or a .jfc
	// path in the JVM's file system.
	Settings string
	// NamesEvery is how often a thread dump reads the threads' current
	// names (Spark renames task threads per task; JFR does not follow);
	// default 1s, negative: never.
	NamesEvery time.Duration
	// Started, when set, is called once the JVM has begun recording, so
	// a caller can start the work it wants profiled then rather than
	// after a guessed delay (JFR.start takes seconds on a loaded node).
	Started func()
}

// maxRecording bounds the recording read back: JFR's own default cap on
// a recording's size is 250 MB.
const maxRecording = 512 << 20

// Recorded is a finished recording.
type Recorded struct {
	JFR   []byte
	Names *Names
	// Dumps counts the thread dumps taken and DumpTime their total
	// round-trip time: the cost the naming added in the JVM.
	Dumps    int
	DumpTime time.Duration
}

// Profile parses the recording and builds its profile of kind, each
// sample named from the thread dumps taken while it ran: what `sparkdx
// profile` and the agent's scheduled recordings both write from.
func (r *Recorded) Profile(kind Kind) (*Profile, error) {
	ps, err := r.Profiles(kind)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// Profiles is Profile of each kind, the recording parsed once.
func (r *Recorded) Profiles(kinds ...Kind) ([]*Profile, error) {
	rec, err := jfr.Parse(r.JFR)
	if err != nil {
		return nil, err
	}
	out := make([]*Profile, len(kinds))
	for i, k := range kinds {
		out[i] = Build(rec, k, r.Names)
	}
	return out, nil
}

// Record starts a flight recording in JVM pid through the attach
// protocol, reads thread names while it runs, dumps it into the JVM's
// /tmp, reads it from there (through /proc/<pid>/root) and removes it.
// The recording is stopped whatever happens, ctx's end included.
func Record(ctx context.Context, pid int, opt RecordOptions) (*Recorded, error) {
	if opt.Duration <= 0 {
		opt.Duration = 30 * time.Second
	}
	if opt.Settings == "" {
		opt.Settings = "profile"
	}
	if opt.NamesEvery == 0 {
		opt.NamesEvery = time.Second
	}
	procRoot := opt.ProcRoot
	if procRoot == "" {
		procRoot = "/proc"
	}
	vm, err := attach.Open(attach.Config{ProcRoot: procRoot}, pid)
	if err != nil {
		return nil, err
	}
	name := "sparkdx-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if out, err := vm.Jcmd(ctx, "JFR.start name="+name+" settings="+opt.Settings); err != nil {
		return nil, fmt.Errorf("pid %d: JFR.start: %w %s", pid, err, out)
	}
	defer func() {
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		vm.Jcmd(stop, "JFR.stop name="+name) //nolint:errcheck // best effort: the recording may have ended with the JVM
	}()
	if opt.Started != nil {
		opt.Started()
	}
	rec := &Recorded{Names: &Names{}}
	if err := rec.watch(ctx, vm, opt); err != nil {
		return nil, err
	}
	file := "/tmp/" + name + ".jfr"
	if out, err := vm.Jcmd(context.WithoutCancel(ctx), "JFR.dump name="+name+" filename="+file); err != nil {
		return nil, fmt.Errorf("pid %d: JFR.dump: %w %s", pid, err, out)
	}
	defer vm.Remove(file)
	if rec.JFR, err = vm.ReadFile(file, maxRecording); err != nil {
		return nil, fmt.Errorf("read the recording: %w", err)
	}
	return rec, nil
}

// watch waits for the recording's duration, dumping threads on the way.
// A cancelled ctx ends the wait early: the recording so far is kept.
func (rec *Recorded) watch(ctx context.Context, vm *attach.VM, opt RecordOptions) error {
	end := time.Now().Add(opt.Duration)
	for {
		if opt.NamesEvery > 0 {
			start := time.Now()
			out, err := vm.Jcmd(ctx, "Thread.print")
			took := time.Since(start)
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("pid %d: Thread.print: %w", vm.PID, err)
			}
			if err == nil {
				rec.Names.Add(start, start.Add(took), parseThreadDump(out))
				rec.Dumps++
				rec.DumpTime += took
			}
		}
		wait := time.Until(end)
		if opt.NamesEvery > 0 {
			wait = min(wait, opt.NamesEvery)
		}
		if wait <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

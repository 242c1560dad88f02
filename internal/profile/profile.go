// Package profile turns a JVM's flight recording into profiles: samples
// of one kind (CPU, native, allocation) with their stacks, attributed to
// the Spark stage and task whose thread ran them, written as collapsed
// stacks, pprof protobuf or a searchable flame-graph page. It also
// records a JVM through the attach protocol (Record).
package profile

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/jfr"
)

// Kind is the sort of samples a profile holds.
type Kind string

// Kinds of profile, each from one JFR event.
const (
	CPU    Kind = "cpu"    // jdk.ExecutionSample: threads running Java code
	Native Kind = "native" // jdk.NativeMethodSample: threads in native code (I/O, waits)
	Alloc  Kind = "alloc"  // jdk.ObjectAllocationSample: bytes allocated
)

func (k Kind) event() string {
	switch k {
	case Native:
		return jfr.NativeMethodSample
	case Alloc:
		return jfr.ObjectAllocationSample
	}
	return jfr.ExecutionSample
}

// Unit is what a sample's value counts.
func (k Kind) Unit() string {
	if k == Alloc {
		return "bytes"
	}
	return "samples"
}

// ParseKind reads a --event value.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case CPU, Native, Alloc:
		return k, nil
	}
	return "", fmt.Errorf("profile kind %q: want cpu, native or alloc", s)
}

// Sample is one sample of a profile.
type Sample struct {
	Stack  *jfr.Stack // innermost frame first
	Thread string     // its name when sampled (from thread dumps when there are some)
	Task   Task
	OnTask bool // the thread ran a Spark task
	// Executor is the executor id ("driver" for the driver) of the JVM
	// the sample came from, when the profiles of many JVMs are read into
	// one (ReadAppProfiles): from a pprof file's executor_id label or a
	// profile file's name. Empty when not known.
	Executor string
	Value    int64
	Time     time.Time
}

// Profile is the samples of one kind from one recording.
type Profile struct {
	Kind       Kind
	Start, End time.Time
	Samples    []Sample
	// Labels are written on every sample of the pprof file: the
	// application and executor a recording's JVM belongs to, so that
	// profiles of many JVMs merged in Pyroscope or pprof stay apart.
	Labels []Label
}

// Label is a pprof label with a string value.
type Label struct{ Key, Value string }

// Build takes the samples of kind from rec; names (may be nil) gives each
// thread's name at the time of the sample.
func Build(rec *jfr.Recording, kind Kind, names *Names) *Profile {
	p := &Profile{Kind: kind, Start: rec.Start, End: rec.End}
	ev := kind.event()
	for _, s := range rec.Samples {
		if s.Type != ev {
			continue
		}
		if s.Stack == nil {
			s.Stack = &jfr.Stack{} // counted under its thread alone
		}
		x := Sample{Stack: s.Stack, Value: s.Weight, Time: s.Time}
		if s.Thread != nil {
			x.Thread = s.Thread.JavaName
			if names != nil {
				if n := names.At(s.Thread.OSID, s.Time); n != "" {
					x.Thread = n
				}
			}
		}
		x.Task, x.OnTask = ParseTaskThread(x.Thread)
		if x.Thread == BetweenTasks && s.Thread != nil {
			x.Task, x.OnTask = names.StageAt(s.Thread.OSID, s.Time)
		}
		p.Samples = append(p.Samples, x)
	}
	return p
}

// Total is the sum of the samples' values.
func (p *Profile) Total() int64 {
	var n int64
	for _, s := range p.Samples {
		n += s.Value
	}
	return n
}

// Stage keeps the samples of one stage's tasks.
func (p *Profile) Stage(id int) *Profile {
	out := &Profile{Kind: p.Kind, Start: p.Start, End: p.End, Labels: p.Labels}
	for _, s := range p.Samples {
		if s.OnTask && s.Task.Stage == id {
			out.Samples = append(out.Samples, s)
		}
	}
	return out
}

// Executor keeps the samples of executor id.
func (p *Profile) Executor(id string) *Profile {
	out := &Profile{Kind: p.Kind, Start: p.Start, End: p.End, Labels: p.Labels}
	for _, s := range p.Samples {
		if s.Executor == id {
			out.Samples = append(out.Samples, s)
		}
	}
	return out
}

// Executors lists the executors that have samples, in order; samples of
// no known executor are left out.
func (p *Profile) Executors() []string {
	var ids []string
	for _, s := range p.Samples {
		if s.Executor != "" && !slices.Contains(ids, s.Executor) {
			ids = append(ids, s.Executor)
		}
	}
	slices.Sort(ids)
	return ids
}

// Stages lists the stages that have samples, in order.
func (p *Profile) Stages() []int {
	var ids []int
	for _, s := range p.Samples {
		if s.OnTask && !slices.Contains(ids, s.Task.Stage) {
			ids = append(ids, s.Task.Stage)
		}
	}
	slices.Sort(ids)
	return ids
}

// FrameShare is a frame's part of a profile.
type FrameShare struct {
	Frame string  // Class.method
	Self  int64   // value of samples with it innermost
	Share float64 // Self over the profile's total
}

// Top is the n frames with the most self value, most first.
func (p *Profile) Top(n int) []FrameShare {
	self := map[string]int64{}
	for _, s := range p.Samples {
		if len(s.Stack.Frames) > 0 {
			self[frameName(s.Stack.Frames[0])] += s.Value
		}
	}
	total := p.Total()
	out := make([]FrameShare, 0, len(self))
	for f, v := range self {
		out = append(out, FrameShare{Frame: f, Self: v, Share: float64(v) / float64(max(total, 1))})
	}
	slices.SortFunc(out, func(a, b FrameShare) int {
		return cmp.Or(cmp.Compare(b.Self, a.Self), cmp.Compare(a.Frame, b.Frame))
	})
	return out[:min(n, len(out))]
}

// rootLabel is the frame a sample's stack hangs under in collapsed stacks
// and flame graphs: its stage for a task's thread, else the thread's name.
func (s *Sample) rootLabel() string {
	if s.OnTask {
		return fmt.Sprintf("stage %d", s.Task.Stage)
	}
	if s.Thread == "" {
		return "(unknown thread)"
	}
	return s.Thread
}

// hiddenClass matches the run-time part of a lambda's or other hidden
// class's name (Work$$Lambda$84+0x00007f4d9c007c28.715521683, in JDK 17's
// form), which differs between JVMs and runs.
var hiddenClass = regexp.MustCompile(`\$\$Lambda\$\d+\+0x[0-9a-f]+[./]\d+|\+0x[0-9a-f]+[./]\d+`)

// frameName is how profiles label a frame: Class.method, with hidden
// classes named alike in every JVM (Work$$Lambda.run), so that the
// profiles of several executors add up.
func frameName(f jfr.Frame) string {
	if f.Class == "" {
		return f.Method // read from a collapsed file without a class
	}
	return hiddenClass.ReplaceAllStringFunc(f.Class, func(m string) string {
		if strings.HasPrefix(m, "$$Lambda") {
			return "$$Lambda"
		}
		return ""
	}) + "." + f.Method
}

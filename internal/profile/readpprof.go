package profile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sparkdx/sparkdx/internal/jfr"
)

// Bounds on one pprof file, so that a hostile file costs at most a few
// hundred MB: a 30 s recording of a busy executor has tens of thousands
// of samples and a few thousand distinct stacks of JFR's 64 frames.
const (
	maxPprofSamples = 1 << 20 // distinct (stack, labels) samples
	maxPprofFrames  = 1 << 21 // frames of the distinct stacks, together
	maxPprofDepth   = 4096    // frames of one stack
	// maxSampleValue bounds one sample's value (a TiB of allocation), so
	// that a million of them add up without overflow.
	maxSampleValue = 1 << 40
)

// pprofMsg is a profile.proto message as read, before its string
// indexes are resolved (the string table may come last).
type pprofMsg struct {
	types   [][2]int64 // sample_type: type, unit
	dflt    int64      // default_sample_type
	samples [][]byte   // raw Sample messages
	locs    map[uint64][]pprofLine
	funcs   map[uint64][2]int64 // name, system_name
	strs    []string
}

type pprofLine struct {
	fn   uint64
	line int64
}

// ReadPprof adds the samples of a profile.proto file (gzipped or not) to
// p, so that pprof files of several JVMs add up as collapsed files do.
// Labels give a sample's executor (executor_id), stage and task (stage,
// tid) and thread; a sample without a stage label is a task's when its
// thread's name says so. A sample labelled with an app_id other than
// appID (when appID is set) is left out. name is for errors.
func ReadPprof(p *Profile, r io.Reader, name, appID string) error {
	data, err := readMaybeGzip(r, name)
	if err != nil {
		return err
	}
	m, err := parsePprof(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := m.addTo(p, appID); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// readMaybeGzip reads r whole, through gzip when it starts with gzip's
// magic, up to maxProfileFile bytes after decompression.
func readMaybeGzip(r io.Reader, name string) ([]byte, error) {
	br := bufio.NewReader(r)
	var src io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		src = zr
	}
	data, err := io.ReadAll(io.LimitReader(src, maxProfileFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxProfileFile {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, maxProfileFile>>20)
	}
	return data, nil
}

// fields calls f with each field of a message; a malformed field ends it
// with an error.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, sub []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var sub []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			sub, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, typ, v, sub); err != nil {
			return err
		}
	}
	return nil
}

// varints reads a repeated integer field in either encoding: packed (one
// bytes field) or one varint per field.
func varints(dst []uint64, typ protowire.Type, v uint64, sub []byte) ([]uint64, error) {
	if typ == protowire.VarintType {
		return append(dst, v), nil
	}
	for len(sub) > 0 {
		x, n := protowire.ConsumeVarint(sub)
		if n < 0 {
			return dst, protowire.ParseError(n)
		}
		dst, sub = append(dst, x), sub[n:]
	}
	return dst, nil
}

func parsePprof(data []byte) (*pprofMsg, error) {
	m := &pprofMsg{locs: map[uint64][]pprofLine{}, funcs: map[uint64][2]int64{}}
	err := fields(data, func(num protowire.Number, typ protowire.Type, v uint64, sub []byte) error {
		switch num {
		case pSampleType:
			var vt [2]int64
			err := fields(sub, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				if num == vtType || num == vtUnit {
					vt[num-vtType] = int64(v)
				}
				return nil
			})
			m.types = append(m.types, vt)
			return err
		case pSample:
			m.samples = append(m.samples, sub)
		case pLocation:
			return m.location(sub)
		case pFunction:
			return m.function(sub)
		case pStringTable:
			m.strs = append(m.strs, string(sub))
		case pDefaultType:
			m.dflt = int64(v)
		}
		return nil
	})
	return m, err
}

func (m *pprofMsg) location(b []byte) error {
	var id uint64
	var lines []pprofLine
	err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, sub []byte) error {
		switch num {
		case locID:
			id = v
		case locLine:
			var l pprofLine
			err := fields(sub, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case lineFunction:
					l.fn = v
				case line:
					l.line = int64(v)
				}
				return nil
			})
			lines = append(lines, l)
			return err
		}
		return nil
	})
	m.locs[id] = lines
	return err
}

func (m *pprofMsg) function(b []byte) error {
	var id uint64
	var f [2]int64
	err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
		switch num {
		case fnID:
			id = v
		case fnName, fnSystemName:
			f[num-fnName] = int64(v)
		}
		return nil
	})
	m.funcs[id] = f
	return err
}

// str is string i of the table; a bad index is an error.
func (m *pprofMsg) str(i int64) (string, error) {
	if i < 0 || i >= int64(len(m.strs)) {
		return "", fmt.Errorf("string index %d out of %d", i, len(m.strs))
	}
	return m.strs[i], nil
}

// valueIndex is which of a sample's values to read: the default sample
// type's, else the last, as pprof chooses.
func (m *pprofMsg) valueIndex() int {
	for i, t := range m.types {
		if m.dflt != 0 && t[0] == m.dflt {
			return i
		}
	}
	return max(len(m.types)-1, 0)
}

var errPprofTooBig = errors.New("more samples or frames than a profile of one JVM has")

// frameOf is the frame of a line: its function's name split at the last
// '.' into class and method (WritePprof's Class.method) and the system
// name's rest as the descriptor.
func (m *pprofMsg) frameOf(l pprofLine) (jfr.Frame, error) {
	fn, ok := m.funcs[l.fn]
	if !ok {
		return jfr.Frame{}, fmt.Errorf("no function %d", l.fn)
	}
	name, err := m.str(fn[0])
	if err != nil {
		return jfr.Frame{}, err
	}
	sys, err := m.str(fn[1])
	if err != nil {
		return jfr.Frame{}, err
	}
	f := jfr.Frame{Method: name, Line: l.line}
	if dot := strings.LastIndexByte(name, '.'); dot > 0 {
		f.Class, f.Method = name[:dot], name[dot+1:]
	}
	if desc, ok := strings.CutPrefix(sys, name); ok {
		f.Descriptor = desc
	}
	return f, nil
}

// pprofSample is a sample's fields as read.
type pprofSample struct {
	locs              []uint64
	values            []uint64
	app, exec, thread string
	stage, tid        int64
	hasStage, hasTID  bool
}

func (m *pprofMsg) sample(b []byte) (pprofSample, error) {
	var s pprofSample
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, sub []byte) error {
		var err error
		switch num {
		case sLocationID:
			s.locs, err = varints(s.locs, typ, v, sub)
		case sValue:
			s.values, err = varints(s.values, typ, v, sub)
		case sLabel:
			err = m.label(&s, sub)
		}
		return err
	})
	return s, err
}

// label reads one label into s: those WritePprof writes.
func (m *pprofMsg) label(s *pprofSample, b []byte) error {
	var key, str, num int64
	var hasNum bool
	if err := fields(b, func(n protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
		switch n {
		case lKey:
			key = int64(v)
		case lStr:
			str = int64(v)
		case lNum:
			num, hasNum = int64(v), true
		}
		return nil
	}); err != nil {
		return err
	}
	k, err := m.str(key)
	if err != nil {
		return err
	}
	v, err := m.str(str)
	if err != nil {
		return err
	}
	switch k {
	case "app_id":
		s.app = v
	case "executor_id":
		s.exec = v
	case "thread":
		s.thread = v
	case "stage":
		s.stage, s.hasStage = num, hasNum
	case "tid":
		s.tid, s.hasTID = num, hasNum
	}
	return nil
}

// addTo adds m's samples to p: equal stacks share one *jfr.Stack and
// samples equal but for their value are added up.
func (m *pprofMsg) addTo(p *Profile, appID string) error {
	vi := m.valueIndex()
	stacks := map[string]*jfr.Stack{}
	merged := map[string]int{} // sample key → index in p.Samples
	frames := 0
	var key []byte
	for _, raw := range m.samples {
		s, err := m.sample(raw)
		if err != nil {
			return err
		}
		if appID != "" && s.app != "" && s.app != appID {
			continue
		}
		if vi >= len(s.values) {
			return fmt.Errorf("sample with %d values, want %d", len(s.values), vi+1)
		}
		key = key[:0]
		for _, id := range s.locs {
			key = protowire.AppendVarint(key, id)
		}
		st, ok := stacks[string(key)]
		if !ok {
			if st, err = m.stack(s.locs); err != nil {
				return err
			}
			if frames += len(st.Frames); frames > maxPprofFrames {
				return errPprofTooBig
			}
			stacks[string(key)] = st
		}
		x := Sample{Stack: st, Thread: s.thread, Executor: s.exec, Value: int64(min(s.values[vi], maxSampleValue))}
		if s.hasStage {
			x.Task, x.OnTask = Task{Stage: int(s.stage), TID: -1}, true
			if s.hasTID {
				x.Task.TID = s.tid
			}
		} else {
			x.Task, x.OnTask = ParseTaskThread(s.thread)
		}
		key = fmt.Appendf(key, "\x00%s\x00%s\x00%t%d/%d", s.exec, s.thread, x.OnTask, x.Task.Stage, x.Task.TID)
		if i, ok := merged[string(key)]; ok {
			p.Samples[i].Value += x.Value
			continue
		}
		if len(merged) >= maxPprofSamples {
			return errPprofTooBig
		}
		merged[string(key)] = len(p.Samples)
		p.Samples = append(p.Samples, x)
	}
	return nil
}

// stack is the frames of a sample's locations, innermost first: each
// location's lines are innermost first too (inlined calls).
func (m *pprofMsg) stack(ids []uint64) (*jfr.Stack, error) {
	st := &jfr.Stack{}
	for _, id := range ids {
		lines, ok := m.locs[id]
		if !ok {
			return nil, fmt.Errorf("no location %d", id)
		}
		if len(st.Frames)+len(lines) > maxPprofDepth {
			return nil, fmt.Errorf("stack deeper than %d frames", maxPprofDepth)
		}
		for _, l := range lines {
			f, err := m.frameOf(l)
			if err != nil {
				return nil, err
			}
			st.Frames = append(st.Frames, f)
		}
	}
	return st, nil
}

package profile

import (
	"compress/gzip"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of pprof's profile.proto.
const (
	pSampleType    = 1
	pSample        = 2
	pLocation      = 4
	pFunction      = 5
	pStringTable   = 6
	pTimeNanos     = 9
	pDurationNanos = 10
	pPeriodType    = 11
	pPeriod        = 12
	pDefaultType   = 14

	vtType, vtUnit = 1, 2

	sLocationID, sValue, sLabel = 1, 2, 3
	lKey, lStr, lNum            = 1, 2, 3

	locID, locLine     = 1, 4
	lineFunction, line = 1, 2

	fnID, fnName, fnSystemName, fnFilename = 1, 2, 3, 4
)

// pprofWriter builds a profile.proto message: strings and functions by
// index, one location per distinct (method, line).
type pprofWriter struct {
	strs  map[string]int64
	table []string
	funcs map[[2]string]uint64 // name, descriptor
	locs  map[[2]uint64]uint64 // function, line
	body  []byte               // functions and locations as they appear
}

func (w *pprofWriter) str(s string) int64 {
	if i, ok := w.strs[s]; ok {
		return i
	}
	i := int64(len(w.table))
	w.strs[s] = i
	w.table = append(w.table, s)
	return i
}

func (w *pprofWriter) function(name, desc, file string) uint64 {
	k := [2]string{name, desc}
	if id, ok := w.funcs[k]; ok {
		return id
	}
	id := uint64(len(w.funcs) + 1)
	w.funcs[k] = id
	var m []byte
	m = protowire.AppendTag(m, fnID, protowire.VarintType)
	m = protowire.AppendVarint(m, id)
	m = appendInt(m, fnName, w.str(name))
	m = appendInt(m, fnSystemName, w.str(name+desc))
	m = appendInt(m, fnFilename, w.str(file))
	w.body = protowire.AppendTag(w.body, pFunction, protowire.BytesType)
	w.body = protowire.AppendBytes(w.body, m)
	return id
}

func (w *pprofWriter) location(fn uint64, ln int64) uint64 {
	k := [2]uint64{fn, uint64(ln)}
	if id, ok := w.locs[k]; ok {
		return id
	}
	id := uint64(len(w.locs) + 1)
	w.locs[k] = id
	var l []byte
	l = protowire.AppendTag(l, lineFunction, protowire.VarintType)
	l = protowire.AppendVarint(l, fn)
	l = appendInt(l, line, max(ln, 0))
	var m []byte
	m = protowire.AppendTag(m, locID, protowire.VarintType)
	m = protowire.AppendVarint(m, id)
	m = protowire.AppendTag(m, locLine, protowire.BytesType)
	m = protowire.AppendBytes(m, l)
	w.body = protowire.AppendTag(w.body, pLocation, protowire.BytesType)
	w.body = protowire.AppendBytes(w.body, m)
	return id
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func (w *pprofWriter) valueType(typ, unit string) []byte {
	return appendInt(appendInt(nil, vtType, w.str(typ)), vtUnit, w.str(unit))
}

// WritePprof writes p as a gzipped profile.proto, as `go tool pprof`,
// Pyroscope and Grafana read it. Samples carry p's Labels, the label
// thread, and for task threads stage and tid (numbers), so `pprof
// -tagfocus=stage=1` keeps one stage.
func WritePprof(out io.Writer, p *Profile) error {
	w := &pprofWriter{strs: map[string]int64{}, funcs: map[[2]string]uint64{}, locs: map[[2]uint64]uint64{}}
	w.str("")
	typ, unit := string(p.Kind), "count" // pprof prints counts bare
	if p.Kind == Alloc {
		typ, unit = "alloc_space", "bytes"
	}
	var msg []byte
	msg = protowire.AppendTag(msg, pSampleType, protowire.BytesType)
	msg = protowire.AppendBytes(msg, w.valueType(typ, unit))
	for i := range p.Samples {
		s := &p.Samples[i]
		var sm, ids []byte
		for _, f := range s.Stack.Frames {
			ids = protowire.AppendVarint(ids, w.location(w.function(frameName(f), f.Descriptor, sourceFile(f.Class)), f.Line))
		}
		sm = protowire.AppendTag(sm, sLocationID, protowire.BytesType)
		sm = protowire.AppendBytes(sm, ids)
		sm = protowire.AppendTag(sm, sValue, protowire.BytesType)
		sm = protowire.AppendBytes(sm, protowire.AppendVarint(nil, uint64(s.Value)))
		for _, l := range p.Labels {
			if l.Value != "" {
				sm = w.label(sm, l.Key, l.Value, 0)
			}
		}
		if s.Thread != "" {
			sm = w.label(sm, "thread", s.Thread, 0)
		}
		if s.OnTask {
			sm = w.label(sm, "stage", "", int64(s.Task.Stage))
			sm = w.label(sm, "tid", "", s.Task.TID)
		}
		msg = protowire.AppendTag(msg, pSample, protowire.BytesType)
		msg = protowire.AppendBytes(msg, sm)
	}
	msg = append(msg, w.body...)
	if !p.Start.IsZero() {
		msg = appendInt(msg, pTimeNanos, p.Start.UnixNano())
		msg = appendInt(msg, pDurationNanos, int64(p.End.Sub(p.Start)))
	}
	msg = protowire.AppendTag(msg, pPeriodType, protowire.BytesType)
	msg = protowire.AppendBytes(msg, w.valueType(typ, unit))
	msg = appendInt(msg, pPeriod, 1)
	msg = appendInt(msg, pDefaultType, w.str(typ))
	for _, s := range w.table {
		msg = protowire.AppendTag(msg, pStringTable, protowire.BytesType)
		msg = protowire.AppendString(msg, s)
	}
	zw := gzip.NewWriter(out)
	if _, err := zw.Write(msg); err != nil {
		return err
	}
	return zw.Close()
}

func (w *pprofWriter) label(b []byte, key, str string, num int64) []byte {
	l := appendInt(nil, lKey, w.str(key))
	if str != "" {
		l = appendInt(l, lStr, w.str(str))
	} else {
		l = appendInt(l, lNum, num)
	}
	b = protowire.AppendTag(b, sLabel, protowire.BytesType)
	return protowire.AppendBytes(b, l)
}

// sourceFile guesses a class's source file the way stack traces name it:
// the outer class's simple name (JFR does not record the file).
func sourceFile(class string) string {
	for i := len(class) - 1; i >= 0; i-- {
		if class[i] == '.' {
			class = class[i+1:]
			break
		}
	}
	for i := range len(class) {
		if class[i] == '$' {
			class = class[:i]
			break
		}
	}
	return class + ".java"
}

package jfr

import "time"

// samples decodes the chunk's events of the kept types into rec.
func (c *chunk) samples(rec *Recording) error {
	kept := map[int64]string{}
	for _, name := range []string{ExecutionSample, NativeMethodSample, ObjectAllocationSample} {
		if cl, ok := c.byName[name]; ok {
			kept[cl.id] = name
		}
	}
	start := time.Unix(0, c.startNanos).UTC()
	if rec.Start.IsZero() || start.Before(rec.Start) {
		rec.Start = start
	}
	d := &decoder{classes: c.classes}
	res := &resolver{c: c, threads: map[int64]*Thread{}, stacks: map[int64]*Stack{}, methods: map[int64]*Frame{}}
	for _, at := range c.events {
		r := c.reader(at)
		size := int(r.int())
		r.b = c.data[:at+size]
		typ := r.long()
		name, ok := kept[typ]
		if !ok {
			continue
		}
		ev := d.object(r, c.classes[typ], 0)
		if r.err != nil {
			return r.err
		}
		s := Sample{Type: name, Weight: 1}
		if t, ok := ev.get("startTime").(int64); ok {
			s.Time = c.time(t)
			if s.Time.After(rec.End) {
				rec.End = s.Time
			}
		}
		switch name {
		case ObjectAllocationSample:
			s.Thread = res.thread(ev.get("eventThread"))
			s.ObjectClass = dotted(res.className(ev.get("objectClass")))
			if w, ok := ev.get("weight").(int64); ok {
				s.Weight = w
			}
		default:
			s.Thread = res.thread(ev.get("sampledThread"))
			if st, ok := c.resolve(ev.get("state")).(*object); ok {
				s.State = res.str(st.get("name"))
			}
		}
		s.Stack = res.stack(ev.get("stackTrace"))
		rec.Samples = append(rec.Samples, s)
	}
	return nil
}

// resolver turns pool entries into Threads, Stacks and Frames once each.
type resolver struct {
	c       *chunk
	threads map[int64]*Thread
	stacks  map[int64]*Stack
	methods map[int64]*Frame // a frame without line, BCI and type
}

func (x *resolver) str(v any) string {
	s, _ := x.c.resolve(v).(string)
	return s
}

func (x *resolver) thread(v any) *Thread {
	rf, ok := v.(ref)
	if !ok {
		return nil
	}
	if t, ok := x.threads[rf.key]; ok {
		return t
	}
	var t *Thread
	if o, ok := x.c.resolve(rf).(*object); ok {
		t = &Thread{JavaName: x.str(o.get("javaName")), OSName: x.str(o.get("osName"))}
		t.JavaID, _ = o.get("javaThreadId").(int64)
		t.OSID, _ = o.get("osThreadId").(int64)
	}
	x.threads[rf.key] = t
	return t
}

// symbol is a jdk.types.Symbol's string.
func (x *resolver) symbol(v any) string {
	if o, ok := x.c.resolve(v).(*object); ok {
		return x.str(o.get("string"))
	}
	return ""
}

// className is a java.lang.Class's internal name (java/lang/String).
func (x *resolver) className(v any) string {
	if o, ok := x.c.resolve(v).(*object); ok {
		return x.symbol(o.get("name"))
	}
	return ""
}

func (x *resolver) method(v any) Frame {
	rf, ok := v.(ref)
	if !ok {
		return Frame{}
	}
	if f, ok := x.methods[rf.key]; ok {
		return *f
	}
	f := &Frame{}
	if o, ok := x.c.resolve(rf).(*object); ok {
		f.Class = dotted(x.className(o.get("type")))
		f.Method = x.symbol(o.get("name"))
		f.Descriptor = x.symbol(o.get("descriptor"))
	}
	x.methods[rf.key] = f
	return *f
}

func (x *resolver) stack(v any) *Stack {
	rf, ok := v.(ref)
	if !ok {
		return nil
	}
	if s, ok := x.stacks[rf.key]; ok {
		return s
	}
	var s *Stack
	if o, ok := x.c.resolve(rf).(*object); ok {
		s = &Stack{}
		s.Truncated, _ = o.get("truncated").(bool)
		frames, _ := o.get("frames").([]any)
		s.Frames = make([]Frame, 0, len(frames))
		for _, fv := range frames {
			fo, ok := fv.(*object)
			if !ok {
				continue
			}
			f := x.method(fo.get("method"))
			f.Line, _ = fo.get("lineNumber").(int64)
			f.BCI, _ = fo.get("bytecodeIndex").(int64)
			if ft, ok := x.c.resolve(fo.get("type")).(*object); ok {
				f.Type = x.str(ft.get("description"))
			}
			s.Frames = append(s.Frames, f)
		}
	}
	x.stacks[rf.key] = s
	return s
}

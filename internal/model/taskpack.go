package model

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// TaskPack holds finished tasks of one stage attempt in a compact form: each
// task is a run of varints in one byte slice (most metrics are zero and
// most times are close to the previous task's), and its strings (executor,
// host, locality, end reason, error text) are indexes into a table the
// pack's tasks share. A running application keeps its finished tasks
// packed, about a tenth of a Task each; Unpack gives back the Tasks.
//
// A pack only grows: a finished task never changes again.
type TaskPack struct {
	data  []byte
	n     int
	strs  []string
	index map[string]uint32 // strs by value
	// last is the previous task's id and launch time, which the next
	// task's are written relative to.
	lastID, lastLaunch int64
}

// Len is the number of tasks packed.
func (p *TaskPack) Len() int {
	if p == nil {
		return 0
	}
	return p.n
}

// Bytes is the memory the pack's encoding and string table take (without
// the strings' own bytes, which the attempt shares).
func (p *TaskPack) Bytes() int {
	if p == nil {
		return 0
	}
	return cap(p.data) + cap(p.strs)*16
}

// Clone returns a pack that grows apart from p.
func (p *TaskPack) Clone() *TaskPack {
	if p == nil {
		return nil
	}
	c := *p
	c.data = slices.Clip(c.data)
	c.strs = slices.Clip(c.strs)
	c.index = nil // rebuilt on the next Add
	return &c
}

// flag bits of a packed task.
const (
	packSpeculative = 1 << iota
	packFailed
	packKilled
	packHasError
	packHasMetrics
	packExecMetrics
	packExecMetricsSet
	packGettingResult
	packFinished
	packAccumulables
	packLoss
	packFetch
)

// Add appends a finished task.
func (p *TaskPack) Add(t *Task) {
	var none TaskExtra
	x := t.Extra
	if x == nil {
		x = &none
	}
	var flags uint64
	for _, f := range []struct {
		on  bool
		bit uint64
	}{{t.Speculative, packSpeculative}, {t.Failed, packFailed}, {t.Killed, packKilled},
		{x.HasErrorMessage, packHasError}, {t.HasMetrics, packHasMetrics}, {x.ExecMetrics != nil, packExecMetrics},
		{x.ExecMetrics != nil && x.ExecMetrics.Set, packExecMetricsSet}, {t.GettingResultTime != 0, packGettingResult},
		{t.FinishTime != 0, packFinished}, {len(x.Accumulables) > 0, packAccumulables},
		{x.Loss != nil, packLoss}, {x.Fetch != nil, packFetch}} {
		if f.on {
			flags |= f.bit
		}
	}
	b := binary.AppendUvarint(p.data, flags)
	b = binary.AppendVarint(b, t.TaskID-p.lastID)
	b = binary.AppendVarint(b, int64(t.Index))
	b = binary.AppendVarint(b, int64(t.Attempt))
	b = binary.AppendVarint(b, int64(t.PartitionID))
	b = binary.AppendVarint(b, t.LaunchTime-p.lastLaunch)
	if t.GettingResultTime != 0 {
		b = binary.AppendVarint(b, t.GettingResultTime-t.LaunchTime)
	}
	if t.FinishTime != 0 {
		b = binary.AppendVarint(b, t.FinishTime-t.LaunchTime)
	}
	b = p.appendStr(b, t.ExecutorID)
	b = p.appendStr(b, t.Host)
	b = p.appendStr(b, t.Locality)
	b = p.appendStr(b, t.EndReason)
	if x.HasErrorMessage {
		b = p.appendStr(b, x.ErrorMessage)
	}
	if t.HasMetrics {
		m := t.Metrics()
		f := m.fields()
		b = appendValues(b, f[:])
	}
	if x.ExecMetrics != nil {
		v := x.ExecMetrics.fields()
		b = appendValues(b, v[:])
	}
	if len(x.Accumulables) > 0 {
		b = p.appendAccumulables(b, x.Accumulables)
	}
	if l := x.Loss; l != nil {
		b = binary.AppendUvarint(b, packBools(l.CausedByApp, l.HasReason))
		b = p.appendStr(b, l.ExecutorID)
		b = p.appendStr(b, l.Reason)
	}
	if f := x.Fetch; f != nil {
		b = binary.AppendUvarint(b, packBools(f.HasAddress, f.HasMapIndex))
		b = p.appendStr(b, f.ExecutorID)
		b = p.appendStr(b, f.Host)
		for _, v := range []int64{f.Port, f.ShuffleID, f.MapIndex, f.MapID, f.ReduceID} {
			b = binary.AppendVarint(b, v)
		}
		b = p.appendStr(b, f.Message)
	}
	p.data = b
	p.n++
	p.lastID, p.lastLaunch = t.TaskID, t.LaunchTime
}

func (p *TaskPack) appendAccumulables(b []byte, accs []Accumulable) []byte {
	b = binary.AppendUvarint(b, uint64(len(accs)))
	for i := range accs {
		a := &accs[i]
		b = binary.AppendUvarint(b, packBools(a.HasUpdate, a.Internal, a.SQL))
		b = binary.AppendVarint(b, a.ID)
		b = p.appendStr(b, a.Name)
		b = p.appendStr(b, a.Update)
		b = p.appendStr(b, a.Value)
	}
	return b
}

// appendValues writes a mask of the non-zero values, then those values.
func appendValues(b []byte, vals []*int64) []byte {
	var mask uint64
	for i, v := range vals {
		if *v != 0 {
			mask |= 1 << i
		}
	}
	b = binary.AppendUvarint(b, mask)
	for _, v := range vals {
		if *v != 0 {
			b = binary.AppendVarint(b, *v)
		}
	}
	return b
}

func packBools(bs ...bool) uint64 {
	var u uint64
	for i, b := range bs {
		if b {
			u |= 1 << i
		}
	}
	return u
}

func (p *TaskPack) appendStr(b []byte, s string) []byte {
	if p.index == nil {
		p.index = make(map[string]uint32, len(p.strs))
		for i, x := range p.strs {
			p.index[x] = uint32(i)
		}
	}
	i, ok := p.index[s]
	if !ok {
		i = uint32(len(p.strs))
		p.strs = append(p.strs, s)
		p.index[s] = i
	}
	return binary.AppendUvarint(b, uint64(i))
}

// Unpack returns the packed tasks, in the order they were added, each a
// new Task.
func (p *TaskPack) Unpack() ([]*Task, error) {
	if p.Len() == 0 {
		return nil, nil
	}
	r := packReader{p: p, b: p.data}
	tasks := make([]Task, p.n)
	out := make([]*Task, p.n)
	var lastID, lastLaunch int64
	for i := range tasks {
		t := &tasks[i]
		r.task(t, lastID, lastLaunch)
		if r.err != nil {
			return nil, fmt.Errorf("model: task pack: task %d of %d: offset %d: %w", i, p.n, len(p.data)-len(r.b), r.err)
		}
		lastID, lastLaunch = t.TaskID, t.LaunchTime
		out[i] = t
	}
	return out, nil
}

// packReader reads a pack's varints; the first error sticks.
type packReader struct {
	p   *TaskPack
	b   []byte
	err error
}

func (r *packReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// varint reads a signed varint: binary.PutVarint's zig-zag encoding of an
// unsigned one.
func (r *packReader) varint() int64 {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (r *packReader) str() string {
	i := r.uvarint()
	if r.err != nil {
		return ""
	}
	if i >= uint64(len(r.p.strs)) {
		r.err = fmt.Errorf("string %d of a table of %d", i, len(r.p.strs))
		return ""
	}
	return r.p.strs[i]
}

func (r *packReader) values(vals []*int64) {
	mask := r.uvarint()
	for i, v := range vals {
		if mask&(1<<i) != 0 {
			*v = r.varint()
		}
	}
}

func (r *packReader) task(t *Task, lastID, lastLaunch int64) {
	flags := r.uvarint()
	t.TaskID = lastID + r.varint()
	t.Index, t.Attempt, t.PartitionID = int32(r.varint()), int32(r.varint()), int32(r.varint())
	t.LaunchTime = lastLaunch + r.varint()
	if flags&packGettingResult != 0 {
		t.GettingResultTime = t.LaunchTime + r.varint()
	}
	if flags&packFinished != 0 {
		t.FinishTime = t.LaunchTime + r.varint()
	}
	t.Speculative, t.Failed, t.Killed = flags&packSpeculative != 0, flags&packFailed != 0, flags&packKilled != 0
	t.ExecutorID, t.Host, t.Locality, t.EndReason = r.str(), r.str(), r.str(), r.str()
	if flags&packHasError != 0 {
		t.SetErrorMessage(r.str())
	}
	if flags&packHasMetrics != 0 {
		var m TaskMetrics
		f := m.fields()
		r.values(f[:])
		t.SetMetrics(&m)
	}
	if flags&packExecMetrics != 0 {
		m := &ExecutorMetrics{Set: flags&packExecMetricsSet != 0}
		v := m.fields()
		r.values(v[:])
		t.SetExecMetrics(m)
	}
	if flags&packAccumulables != 0 {
		t.SetAccumulables(r.accumulables())
	}
	if flags&packLoss != 0 {
		bs := r.uvarint()
		l := &ExecutorLoss{CausedByApp: bs&1 != 0, HasReason: bs&2 != 0}
		l.ExecutorID, l.Reason = r.str(), r.str()
		t.SetFailure(l, nil)
	}
	if flags&packFetch != 0 {
		bs := r.uvarint()
		f := &FetchFailure{HasAddress: bs&1 != 0, HasMapIndex: bs&2 != 0}
		f.ExecutorID, f.Host = r.str(), r.str()
		f.Port, f.ShuffleID, f.MapIndex, f.MapID, f.ReduceID = r.varint(), r.varint(), r.varint(), r.varint(), r.varint()
		f.Message = r.str()
		t.SetFailure(t.Loss(), f)
	}
}

func (r *packReader) accumulables() []Accumulable {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) { // each takes bytes: a bad count cannot allocate much
		r.err = fmt.Errorf("bad accumulable count %d", n)
		return nil
	}
	out := make([]Accumulable, n)
	for i := range out {
		a := &out[i]
		bs := r.uvarint()
		a.HasUpdate, a.Internal, a.SQL = bs&1 != 0, bs&2 != 0, bs&4 != 0
		a.ID = r.varint()
		a.Name, a.Update, a.Value = r.str(), r.str(), r.str()
	}
	return out
}

// numTaskMetrics is the number of int64 fields of TaskMetrics.
const numTaskMetrics = 36

// fields returns a pointer to each metric, in a fixed order.
func (m *TaskMetrics) fields() [numTaskMetrics]*int64 {
	r, p, w := &m.ShuffleRead, &m.ShuffleRead.Push, &m.ShuffleWrite
	return [numTaskMetrics]*int64{&m.ExecutorDeserializeTime, &m.ExecutorDeserializeCpuTime, &m.ExecutorRunTime,
		&m.ExecutorCpuTime, &m.ResultSize, &m.JvmGcTime, &m.ResultSerializationTime,
		&m.MemoryBytesSpilled, &m.DiskBytesSpilled, &m.PeakExecutionMemory,
		&m.PeakOnHeapExecutionMemory, &m.PeakOffHeapExecutionMemory,
		&m.InputBytesRead, &m.InputRecordsRead, &m.OutputBytesWritten, &m.OutputRecordsWritten,
		&r.RemoteBlocksFetched, &r.LocalBlocksFetched, &r.FetchWaitTime, &r.RemoteBytesRead,
		&r.RemoteBytesReadToDisk, &r.LocalBytesRead, &r.RecordsRead, &r.RemoteReqsDuration,
		&p.CorruptMergedBlockChunks, &p.MergedFetchFallbackCount, &p.RemoteMergedBlocksFetched,
		&p.LocalMergedBlocksFetched, &p.RemoteMergedChunksFetched, &p.LocalMergedChunksFetched,
		&p.RemoteMergedBytesRead, &p.LocalMergedBytesRead, &p.RemoteMergedReqsDuration,
		&w.BytesWritten, &w.WriteTime, &w.RecordsWritten}
}

// fields returns a pointer to each value.
func (m *ExecutorMetrics) fields() [NumExecutorMetrics]*int64 {
	var out [NumExecutorMetrics]*int64
	for i := range m.Values {
		out[i] = &m.Values[i]
	}
	return out
}

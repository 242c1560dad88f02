package hprof

import (
	"encoding/binary"
	"fmt"
)

// Stack traces name the frame a local variable lives in: a Java frame root
// says only "thread serial T, frame N"; the STACK TRACE record of thread T
// lists its frames and each STACK FRAME record gives the method, source
// file and line. Only read when the graph is built (the histogram skips
// them).

const (
	tagStackFrame = 0x04
	tagStackTrace = 0x05
)

type stackFrame struct {
	method, file uint64 // UTF8 ids
	classSerial  uint32
	line         int32 // >0 line; -1 unknown, -2 compiled, -3 native
}

// frames is what the dump says about threads' stacks.
type frames struct {
	byID          map[uint64]stackFrame
	byThread      map[uint32][]uint64 // thread serial -> frame ids, innermost first
	classBySerial map[uint32]uint64   // LOAD CLASS serial -> class id
}

func newFrames() *frames {
	return &frames{byID: map[uint64]stackFrame{}, byThread: map[uint32][]uint64{}, classBySerial: map[uint32]uint64{}}
}

// stackFrameRecord reads a STACK FRAME record of length bytes.
func (s *scanner) stackFrameRecord(length int64) error {
	id := int64(s.d.idSize)
	if length != 4*id+8 {
		return fmt.Errorf("STACK FRAME: length %d, want %d", length, 4*id+8)
	}
	b, err := s.d.next(int(length))
	if err != nil {
		return err
	}
	s.frames.byID[getID(b, s.d.idSize)] = stackFrame{
		method:      getID(b[id:], s.d.idSize),
		file:        getID(b[3*id:], s.d.idSize),
		classSerial: binary.BigEndian.Uint32(b[4*id:]),
		line:        int32(binary.BigEndian.Uint32(b[4*id+4:])),
	}
	return nil
}

// stackTraceRecord reads a STACK TRACE record of length bytes.
func (s *scanner) stackTraceRecord(length int64) error {
	if length < 12 {
		return fmt.Errorf("STACK TRACE: length %d, shorter than its header", length)
	}
	h, err := s.d.next(12)
	if err != nil {
		return err
	}
	thread, n := binary.BigEndian.Uint32(h[4:]), int64(binary.BigEndian.Uint32(h[8:]))
	if 12+n*int64(s.d.idSize) != length {
		return fmt.Errorf("STACK TRACE: %d frames in %d bytes", n, length)
	}
	ids := make([]uint64, 0, min(n, 1024))
	for range n {
		id, err := s.d.id()
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if thread != 0 {
		s.frames.byThread[thread] = ids
	}
	return nil
}

// javaFrameRoot reads the rest of a ROOT JAVA FRAME record (thread serial,
// frame number) for the graph to name the root.
func (s *scanner) javaFrameRoot(id uint64) error {
	b, err := s.d.next(8)
	if err != nil {
		return err
	}
	frame := [2]uint32{binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])}
	if s.g.fused {
		s.g.rawRoot(rawRoot{id: id, tag: subRootJavaFrame, frame: frame, hasFrame: true})
	} else if w := s.g.root(id, subRootJavaFrame); w != 0 {
		s.g.rootFrame[w] = frame
	}
	return nil
}

// frameName is "Class.method(File.java:line)" for frame number n of thread,
// or "" when the dump does not say.
func (s *scanner) frameName(thread, n uint32) string {
	ids := s.frames.byThread[thread]
	if int(n) >= len(ids) {
		return ""
	}
	f, ok := s.frames.byID[ids[n]]
	if !ok {
		return ""
	}
	name := s.utf8[f.method]
	if c, ok := s.frames.classBySerial[f.classSerial]; ok {
		name = s.className(c) + "." + name
	}
	switch {
	case f.line > 0:
		return fmt.Sprintf("%s(%s:%d)", name, s.utf8[f.file], f.line)
	case f.line == -3:
		return name + "(native)"
	}
	return fmt.Sprintf("%s(%s)", name, s.utf8[f.file])
}

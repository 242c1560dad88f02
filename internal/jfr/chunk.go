package jfr

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Chunk header layout (JDK 11+, file format 2.x): magic, major and minor
// version, then eight-byte fields and a four-byte feature word.
const (
	headerSize     = 68
	featCompressed = 1 // integers are varints
	typeMetadata   = 0
	typeConstants  = 1
)

var magic = []byte("FLR\x00")

// chunk is one self-contained part of a recording: a JVM that records
// for long rotates chunks, each with its own metadata and pools.
type chunk struct {
	offset        int // in the file
	size          int
	cpOffset      int
	metaOffset    int
	startNanos    int64
	startTicks    int64
	ticksPerSec   int64
	compressed    bool
	major, minor  int
	classes       map[int64]*class
	byName        map[string]*class
	pools         map[int64]map[int64]any
	events        []int // offsets of the events that are neither metadata nor pools
	data          []byte
	stringClassID int64
}

func parseHeader(b []byte, off int) (*chunk, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("offset %d: chunk header: %w", off, errShort)
	}
	if !bytes.Equal(b[:4], magic) {
		return nil, fmt.Errorf("offset %d: no JFR chunk (magic %q)", off, b[:4])
	}
	be := binary.BigEndian
	c := &chunk{offset: off, major: int(be.Uint16(b[4:])), minor: int(be.Uint16(b[6:]))}
	if c.major != 2 {
		return nil, fmt.Errorf("offset %d: JFR format %d.%d, want 2.x (JDK 11 and later)", off, c.major, c.minor)
	}
	size := int64(be.Uint64(b[8:]))
	cp, meta := int64(be.Uint64(b[16:])), int64(be.Uint64(b[24:]))
	c.startNanos, c.startTicks, c.ticksPerSec = int64(be.Uint64(b[32:])), int64(be.Uint64(b[48:])), int64(be.Uint64(b[56:]))
	c.compressed = be.Uint32(b[64:])&featCompressed != 0
	switch {
	case size < headerSize || size > int64(len(b)):
		// A recording still being written has size 0 in its last chunk.
		return nil, fmt.Errorf("offset %d: chunk size %d, %d bytes left (recording still open or cut short?)", off, size, len(b))
	case meta < headerSize || meta >= size || cp < headerSize || cp >= size:
		return nil, fmt.Errorf("offset %d: metadata at %d, constant pools at %d, outside the chunk's %d bytes", off, meta, cp, size)
	case c.ticksPerSec <= 0:
		return nil, fmt.Errorf("offset %d: %d ticks per second", off, c.ticksPerSec)
	}
	c.size, c.cpOffset, c.metaOffset = int(size), int(cp), int(meta)
	c.data = b[:size]
	return c, nil
}

func (c *chunk) reader(at int) *reader {
	return &reader{b: c.data, pos: at, compressed: c.compressed, base: c.offset}
}

// read parses the metadata, walks every event once to collect the pools
// and the offsets of the other events.
func (c *chunk) read() error {
	r := c.reader(c.metaOffset)
	size := r.int()
	if typ := r.long(); r.err == nil && typ != typeMetadata {
		return fmt.Errorf("offset %d: event type %d at the metadata offset", c.offset+c.metaOffset, typ)
	}
	c.classes = parseMetadata(r)
	if r.err != nil {
		return fmt.Errorf("metadata (%d bytes): %w", size, r.err)
	}
	c.byName = make(map[string]*class, len(c.classes))
	for _, cl := range c.classes {
		c.byName[cl.name] = cl
	}
	if s, ok := c.byName["java.lang.String"]; ok {
		c.stringClassID = s.id
	}
	d := &decoder{classes: c.classes}
	c.pools = map[int64]map[int64]any{}
	for at := headerSize; at < c.size; {
		r := c.reader(at)
		size := int(r.int())
		typ := r.long()
		if r.err != nil {
			return r.err
		}
		if size <= 0 || size > c.size-at {
			return fmt.Errorf("offset %d: event size %d, %d bytes left in the chunk", c.offset+at, size, c.size-at)
		}
		r.b = c.data[:at+size] // an event never reads past its size
		switch typ {
		case typeMetadata:
		case typeConstants:
			if err := c.readPools(r, d); err != nil {
				return err
			}
		default:
			c.events = append(c.events, at)
		}
		at += size
	}
	return nil
}

// readPools reads a checkpoint event: start, duration, the delta to the
// previous checkpoint, its kind, then entries of each pool.
func (c *chunk) readPools(r *reader, d *decoder) error {
	r.long() // start
	r.long() // duration
	r.long() // delta to the previous checkpoint: every one is read in turn instead
	r.u8()   // checkpoint kind (flush, chunk header, statics, thread)
	pools := r.count(2)
	for range pools {
		typ := r.long()
		cl, ok := c.classes[typ]
		if !ok {
			r.fail("constant pool of unknown type %d", typ)
			break
		}
		n := r.count(1)
		pool := c.pools[typ]
		if pool == nil {
			pool = make(map[int64]any, n)
			c.pools[typ] = pool
		}
		for range n {
			key := r.long()
			v := d.value(r, field{name: cl.name, typ: typ}, 0)
			if r.err != nil {
				break
			}
			if _, seen := pool[key]; !seen {
				pool[key] = v
			}
		}
	}
	if r.err != nil {
		return fmt.Errorf("constant pool: %w", r.err)
	}
	return nil
}

// resolve follows pool references: a ref becomes its entry (nil when the
// pool lacks the key, as the JDK's reader does).
func (c *chunk) resolve(v any) any {
	rf, ok := v.(ref)
	if !ok {
		return v
	}
	typ := rf.typ
	if typ == stringPoolType {
		typ = c.stringClassID
	}
	return c.pools[typ][rf.key]
}

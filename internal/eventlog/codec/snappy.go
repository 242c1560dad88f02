package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/snappy"
)

// snappy-java's SnappyOutputStream writes a 16-byte header ("\x82SNAPPY\x00",
// version and compatible version as big-endian int32) and then chunks of a
// big-endian int32 length and a raw snappy block. SnappyInputStream accepts
// another header where a chunk could start (concatenated streams). The
// Snappy framing format ("\xff\x06\x00\x00sNaPpY", then typed chunks with a
// masked CRC-32C) is accepted too.
const (
	snappyJavaHeaderLen = 16
	snappyFrameMaxLen   = 65536 // decoded bytes per framing-format chunk
)

type snappyMode int

const (
	snappyStart snappyMode = iota
	snappyJava
	snappyFramed
)

type snappyDecoder struct {
	mode snappyMode
	hdr  [snappyJavaHeaderLen]byte
	out  []byte
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// restartable: a framing-format chunk header cannot be told from a
// snappy-java chunk length without the stream header, so only snappy-java
// streams restart past their start.
func (d *snappyDecoder) restartable() bool { return d.mode != snappyFramed }

func (d *snappyDecoder) next(s *source) ([]byte, error) {
	for {
		start := s.off
		head, err := s.br.Peek(len(magicSnappyFramed))
		if len(head) == 0 {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, s.errorAt(start, "read", err)
		}
		short := len(head) < len(magicSnappyFramed) // only at the end of the input
		isJava := bytes.HasPrefix(head, magicSnappyJava) || short && bytes.HasPrefix(magicSnappyJava, head)
		if d.mode != snappyFramed && isJava {
			if err := s.readFull(d.hdr[:], "stream header", false); err != nil {
				return nil, err
			}
			d.mode = snappyJava
			continue
		}
		if d.mode == snappyStart {
			if !bytes.HasPrefix(head, magicSnappyFramed) && !(short && bytes.HasPrefix(magicSnappyFramed, head)) {
				return nil, s.errorAt(start, fmt.Sprintf("stream magic %q, want %q (snappy-java) or %q (framing format)",
					head[:min(len(head), 8)], magicSnappyJava, magicSnappyFramed), nil)
			}
			d.mode = snappyFramed
		}
		var out []byte
		if d.mode == snappyJava {
			out, err = d.javaChunk(s, start)
		} else {
			out, err = d.framedChunk(s, start)
		}
		if err != nil || len(out) > 0 {
			return out, err
		}
	}
}

// javaChunk reads one snappy-java chunk.
func (d *snappyDecoder) javaChunk(s *source, start int64) ([]byte, error) {
	var lenBuf [4]byte
	if err := s.readFull(lenBuf[:], "chunk length", false); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(lenBuf[:]))
	if n < 0 || n > maxPayload {
		return nil, s.errorAt(start, fmt.Sprintf("chunk length %d out of range", n), nil)
	}
	payload, err := s.payload(int(n), "chunk")
	if err != nil {
		return nil, err
	}
	return d.decode(s, start, payload, maxPayload)
}

// framedChunk reads one framing-format chunk; skippable chunks give no bytes.
func (d *snappyDecoder) framedChunk(s *source, start int64) ([]byte, error) {
	var h [4]byte
	if err := s.readFull(h[:], "chunk header", false); err != nil {
		return nil, err
	}
	typ, n := h[0], int(h[1])|int(h[2])<<8|int(h[3])<<16
	payload, err := s.payload(n, "chunk")
	if err != nil {
		return nil, err
	}
	switch {
	case typ == 0xff:
		if !bytes.Equal(payload, magicSnappyFramed[4:]) {
			return nil, s.errorAt(start, fmt.Sprintf("stream identifier %q, want %q", payload, magicSnappyFramed[4:]), nil)
		}
		return nil, nil
	case typ == 0x00 || typ == 0x01:
		if n < 4 {
			return nil, s.errorAt(start, fmt.Sprintf("chunk length %d has no room for its checksum", n), nil)
		}
		want := binary.LittleEndian.Uint32(payload)
		out := payload[4:]
		if typ == 0x00 {
			if out, err = d.decode(s, start, out, snappyFrameMaxLen); err != nil {
				return nil, err
			}
		} else if len(out) > snappyFrameMaxLen {
			return nil, s.errorAt(start, fmt.Sprintf("uncompressed chunk of %d bytes exceeds %d", len(out), snappyFrameMaxLen), nil)
		}
		c := crc32.Checksum(out, crcTable)
		if got := (c>>15 | c<<17) + 0xa282ead8; got != want {
			return nil, s.errorAt(start, fmt.Sprintf("chunk checksum 0x%08x does not match 0x%08x of the decoded bytes", want, got), nil)
		}
		return out, nil
	case typ <= 0x7f:
		return nil, s.errorAt(start, fmt.Sprintf("reserved unskippable chunk type 0x%02x", typ), nil)
	}
	return nil, nil // padding or skippable chunk
}

// decode expands one raw snappy block into the decoder's output buffer.
func (d *snappyDecoder) decode(s *source, start int64, block []byte, limit int) ([]byte, error) {
	if len(block) == 0 {
		return nil, nil
	}
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return nil, s.errorAt(start, "corrupt block", err)
	}
	if n > limit {
		return nil, s.errorAt(start, fmt.Sprintf("block decodes to %d bytes, more than %d", n, limit), nil)
	}
	if cap(d.out) < n {
		d.out = make([]byte, n)
	}
	out, err := snappy.Decode(d.out[:n], block)
	if err != nil {
		return nil, s.errorAt(start, "corrupt block", err)
	}
	return out, nil
}

package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"
)

// lz4-java LZ4BlockOutputStream layout: each block is the magic "LZ4Block",
// a token (method | log2(block size)-10), the stored and decoded lengths and
// the XXH32 checksum of the decoded bytes (all little-endian int32), then the
// payload. A block with both lengths zero ends the stream; Spark reads
// concatenated streams, so another may follow.
const (
	lz4HeaderLen    = 8 + 1 + 4 + 4 + 4
	lz4MethodRaw    = 0x10
	lz4MethodLZ4    = 0x20
	lz4LevelBase    = 10
	lz4ChecksumSeed = 0x9747b28c
	lz4ChecksumMask = 0x0FFFFFFF
)

type lz4Decoder struct {
	hdr      [lz4HeaderLen]byte
	out      []byte
	inStream bool // a data block was read and its stream's end block not yet
}

func (d *lz4Decoder) next(s *source) ([]byte, error) {
	for {
		start := s.off
		err := s.readFull(d.hdr[:], "block header", true)
		if err == io.EOF && d.inStream {
			return nil, s.errorAt(start, "stream ends without its end block", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, err
		}
		out, end, err := d.block(s, start)
		if err != nil {
			return nil, err
		}
		if end {
			d.inStream = false
			continue
		}
		d.inStream = true
		return out, nil
	}
}

// block checks one header and decodes its payload; end reports an end block.
func (d *lz4Decoder) block(s *source, start int64) (out []byte, end bool, err error) {
	h := d.hdr[:]
	if !bytes.Equal(h[:8], magicLZ4) {
		return nil, false, s.errorAt(start, fmt.Sprintf("block magic %q, want %q", h[:8], magicLZ4), nil)
	}
	method, level := h[8]&0xf0, int(h[8]&0x0f)
	stored := int32(binary.LittleEndian.Uint32(h[9:]))
	decoded := int32(binary.LittleEndian.Uint32(h[13:]))
	sum := binary.LittleEndian.Uint32(h[17:])
	maxBlock := int32(1) << (level + lz4LevelBase)
	switch {
	case method != lz4MethodRaw && method != lz4MethodLZ4:
		return nil, false, s.errorAt(start, fmt.Sprintf("block method 0x%02x, want 0x10 (raw) or 0x20 (lz4)", method), nil)
	case stored < 0 || decoded < 0 || decoded > maxBlock || int(stored) > lz4.CompressBlockBound(int(maxBlock)):
		return nil, false, s.errorAt(start, fmt.Sprintf("block lengths %d stored, %d decoded out of range for block size %d", stored, decoded, maxBlock), nil)
	case (stored == 0) != (decoded == 0), method == lz4MethodRaw && stored != decoded:
		return nil, false, s.errorAt(start, fmt.Sprintf("block lengths %d stored, %d decoded do not agree with method 0x%02x", stored, decoded, method), nil)
	case decoded == 0:
		if sum != 0 {
			return nil, false, s.errorAt(start, fmt.Sprintf("end block checksum 0x%08x, want 0", sum), nil)
		}
		return nil, true, nil
	}
	payload, err := s.payload(int(stored), "block payload")
	if err != nil {
		return nil, false, err
	}
	out = payload
	if method == lz4MethodLZ4 {
		if cap(d.out) < int(decoded) {
			d.out = make([]byte, decoded)
		}
		out = d.out[:decoded]
		n, err := lz4.UncompressBlock(payload, out)
		if err != nil {
			return nil, false, s.errorAt(start, "corrupt block", err)
		}
		if n != int(decoded) {
			return nil, false, s.errorAt(start, fmt.Sprintf("block decodes to %d bytes, header says %d", n, decoded), nil)
		}
	}
	if got := xxh32(out, lz4ChecksumSeed) & lz4ChecksumMask; got != sum {
		return nil, false, s.errorAt(start, fmt.Sprintf("block checksum 0x%08x does not match 0x%08x of the decoded bytes", sum, got), nil)
	}
	return out, false, nil
}

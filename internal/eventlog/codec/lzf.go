package codec

import (
	"encoding/binary"
	"fmt"
)

// compress-lzf chunks: "ZV", a type byte, then for an uncompressed chunk
// its big-endian uint16 length, for a compressed one the stored and decoded
// uint16 lengths; then the payload. There is no end marker.
const (
	lzfTypeRaw        = 0
	lzfTypeCompressed = 1
)

type lzfDecoder struct {
	hdr [7]byte
	out []byte
}

func (d *lzfDecoder) next(s *source) ([]byte, error) {
	start := s.off
	h := d.hdr[:]
	if err := s.readFull(h[:5], "chunk header", true); err != nil {
		return nil, err
	}
	if h[0] != 'Z' || h[1] != 'V' {
		return nil, s.errorAt(start, fmt.Sprintf("chunk signature %q, want \"ZV\"", h[:2]), nil)
	}
	switch h[2] {
	case lzfTypeRaw:
		return s.payload(int(binary.BigEndian.Uint16(h[3:])), "chunk")
	case lzfTypeCompressed:
		if err := s.readFull(h[5:7], "chunk header", false); err != nil {
			return nil, err
		}
	default:
		return nil, s.errorAt(start, fmt.Sprintf("chunk type %d, want 0 (uncompressed) or 1 (compressed)", h[2]), nil)
	}
	stored, decoded := int(binary.BigEndian.Uint16(h[3:])), int(binary.BigEndian.Uint16(h[5:]))
	payload, err := s.payload(stored, "chunk")
	if err != nil {
		return nil, err
	}
	if cap(d.out) < decoded {
		d.out = make([]byte, 1<<16)
	}
	out := d.out[:decoded]
	if err := lzfDecompress(payload, out); err != nil {
		return nil, s.errorAt(start, "corrupt chunk", err)
	}
	return out, nil
}

// lzfDecompress expands LZF data src into exactly len(dst) bytes. A control
// byte below 32 starts a literal run of ctrl+1 bytes; otherwise its top
// three bits are a length (7: add the next byte) and the rest with the next
// byte a distance back into the output.
func lzfDecompress(src, dst []byte) error {
	ip, op := 0, 0
	for ip < len(src) {
		ctrl := int(src[ip])
		ip++
		if ctrl < 32 {
			n := ctrl + 1
			if ip+n > len(src) {
				return fmt.Errorf("literal run of %d bytes at %d passes end of chunk (%d)", n, ip-1, len(src))
			}
			if op+n > len(dst) {
				return fmt.Errorf("literal run at %d passes decoded length %d", ip-1, len(dst))
			}
			copy(dst[op:], src[ip:ip+n])
			ip += n
			op += n
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			if ip >= len(src) {
				return fmt.Errorf("back-reference at %d cut short", ip-1)
			}
			n += int(src[ip])
			ip++
		}
		if ip >= len(src) {
			return fmt.Errorf("back-reference at %d cut short", ip-1)
		}
		ref := op - (ctrl&0x1f)<<8 - 1 - int(src[ip])
		ip++
		n += 2
		if ref < 0 {
			return fmt.Errorf("back-reference at %d points %d bytes before the start", ip-2, -ref)
		}
		if op+n > len(dst) {
			return fmt.Errorf("back-reference at %d passes decoded length %d", ip-2, len(dst))
		}
		// Copy in runs no longer than the distance, so an overlapping
		// reference repeats its pattern.
		for done := 0; done < n; {
			done += copy(dst[op+done:op+n], dst[ref+done:op+done])
		}
		op += n
	}
	if op != len(dst) {
		return fmt.Errorf("decodes to %d bytes, header says %d", op, len(dst))
	}
	return nil
}

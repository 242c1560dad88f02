package codec

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// zstd frame layout (RFC 8878): the magic, a frame header descriptor byte
// (content-size field size, single-segment flag, checksum flag, dictionary
// id size), an optional window descriptor, dictionary id and content size;
// then blocks, each a 3-byte little-endian header (last flag, type, size)
// and its body (size bytes, or 1 for an RLE block); then an optional 4-byte
// checksum. A skippable frame is its magic, a 4-byte size and that many
// bytes.
const (
	zstdBlockHeaderLen = 3
	zstdBlockRLE       = 1
	zstdBlockReserved  = 3
	zstdChecksumLen    = 4
	zstdSkippableLen   = 8
)

type zstdFrameState int

const (
	zstdHeader zstdFrameState = iota
	zstdBlock
	zstdChecksum
	zstdDone
)

// zstdFrame reads one zstd frame out of a stream of frames, ending with
// io.EOF exactly at the frame's end: it walks the frame's block headers as
// the bytes pass, without decoding them. A stream that stops inside the
// frame ends with io.ErrUnexpectedEOF and sets cut.
type zstdFrame struct {
	br       *bufio.Reader
	off      int64 // compressed bytes consumed, from the stream start
	state    zstdFrameState
	remain   int   // bytes of the current header or block still to pass
	checksum bool  // the frame ends with a checksum
	start    int64 // offset of the frame
	cut      bool
	err      error // a malformed frame, as an *Error
}

// begin starts the frame at the reader's position. skippable reports a
// skippable frame, which begin consumes whole. At a clean end of the stream
// it returns io.EOF.
func (f *zstdFrame) begin() (skippable bool, err error) {
	f.start, f.state, f.remain, f.cut, f.err = f.off, zstdHeader, 0, false, nil
	head, err := f.br.Peek(len(magicZstd))
	switch {
	case len(head) == 0 && errors.Is(err, io.EOF):
		return false, io.EOF
	case len(head) < len(magicZstd):
		return false, f.fail("frame magic cut short", io.ErrUnexpectedEOF, err)
	case head[0]&0xf0 == 0x50 && head[1] == 0x2a && head[2] == 0x4d && head[3] == 0x18:
		return true, f.skip()
	case [4]byte(head) != [4]byte(magicZstd):
		return false, f.fail(fmt.Sprintf("frame magic % x, want % x", head, magicZstd), nil, nil)
	}
	return false, nil
}

// skip consumes a skippable frame.
func (f *zstdFrame) skip() error {
	head, err := f.br.Peek(zstdSkippableLen)
	if len(head) < zstdSkippableLen {
		return f.fail("skippable frame header cut short", io.ErrUnexpectedEOF, err)
	}
	n := int64(zstdSkippableLen) + int64(binary.LittleEndian.Uint32(head[4:]))
	got, err := io.CopyN(io.Discard, f.br, n)
	f.off += got
	if got < n {
		return f.fail("skippable frame cut short", io.ErrUnexpectedEOF, err)
	}
	f.state = zstdDone
	return nil
}

// fail records a problem in the frame. A cut (io.ErrUnexpectedEOF) is
// reported unless the read itself failed (readErr other than io.EOF).
func (f *zstdFrame) fail(msg string, cause, readErr error) error {
	if readErr != nil && !errors.Is(readErr, io.EOF) {
		msg, cause = "read", readErr
	}
	if cause == io.ErrUnexpectedEOF {
		f.cut = true
	}
	f.err = &Error{Codec: ZSTD, Offset: f.start, Msg: msg, Err: cause}
	return f.err
}

// done reports whether the whole frame has been read.
func (f *zstdFrame) done() bool { return f.state == zstdDone && f.remain == 0 }

func (f *zstdFrame) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	for f.remain == 0 {
		if f.state == zstdDone {
			return 0, io.EOF
		}
		if err := f.nextSection(); err != nil {
			return 0, err
		}
	}
	n, err := f.br.Read(p[:min(len(p), f.remain)])
	f.off += int64(n)
	f.remain -= n
	if n > 0 {
		return n, nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	if errors.Is(err, io.EOF) {
		return 0, f.fail("frame cut short", io.ErrUnexpectedEOF, nil)
	}
	return 0, f.fail("read", err, nil)
}

// nextSection reads the header of what follows in the frame (frame header,
// block, checksum) and sets how many bytes it spans.
func (f *zstdFrame) nextSection() error {
	switch f.state {
	case zstdHeader:
		h, err := f.br.Peek(len(magicZstd) + 1)
		if len(h) < len(magicZstd)+1 {
			return f.fail("frame header cut short", io.ErrUnexpectedEOF, err)
		}
		fhd := h[4]
		if fhd&0x08 != 0 {
			return f.fail(fmt.Sprintf("frame header descriptor 0x%02x has its reserved bit set", fhd), nil, nil)
		}
		single := fhd&0x20 != 0
		n := len(magicZstd) + 1 + [4]int{0, 1, 2, 4}[fhd&3]
		if !single {
			n++ // window descriptor
		}
		switch fcs := fhd >> 6; {
		case fcs == 0 && single:
			n++
		case fcs > 0:
			n += 1 << fcs
		}
		f.remain, f.checksum, f.state = n, fhd&0x04 != 0, zstdBlock
	case zstdBlock:
		h, err := f.br.Peek(zstdBlockHeaderLen)
		if len(h) < zstdBlockHeaderLen {
			return f.fail(fmt.Sprintf("block header at offset %d cut short", f.off), io.ErrUnexpectedEOF, err)
		}
		v := uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16
		last, typ, size := v&1 != 0, (v>>1)&3, int(v>>3)
		switch typ {
		case zstdBlockRLE:
			size = 1
		case zstdBlockReserved:
			return f.fail(fmt.Sprintf("block at offset %d has the reserved type 3", f.off), nil, nil)
		}
		f.remain = zstdBlockHeaderLen + size
		if last {
			f.state = zstdDone
			if f.checksum {
				f.state = zstdChecksum
			}
		}
	case zstdChecksum:
		f.remain, f.state = zstdChecksumLen, zstdDone
	}
	return nil
}

// Package codec decodes the compressed streams Spark writes event logs with:
// lz4-java's LZ4Block stream, snappy-java's stream (and the Snappy framing
// format), compress-lzf chunks, zstd frames and (multi-member) gzip. Every
// reader streams, delivers each complete block before reporting a problem in
// the next one, and reports a stream that stops inside a block or frame as an
// error wrapping io.ErrUnexpectedEOF — normal for a log Spark is still writing.
package codec

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
)

// Codec names a compression codec by Spark's short name.
type Codec string

// The codecs Spark (and Databricks log rotation) write event logs with.
const (
	None   Codec = "none"
	LZ4    Codec = "lz4"
	Snappy Codec = "snappy"
	LZF    Codec = "lzf"
	ZSTD   Codec = "zstd"
	Gzip   Codec = "gzip"
)

// All lists every codec, None first.
var All = [...]Codec{None, LZ4, Snappy, LZF, ZSTD, Gzip}

func (c Codec) String() string { return string(c) }

// FromExt maps a file extension without the dot ("lz4", "zst", "gz") to its
// codec; ok is false for an extension that names no codec.
func FromExt(ext string) (c Codec, ok bool) {
	switch strings.ToLower(ext) {
	case "lz4":
		return LZ4, true
	case "snappy":
		return Snappy, true
	case "lzf":
		return LZF, true
	case "zstd", "zst":
		return ZSTD, true
	case "gz", "gzip":
		return Gzip, true
	}
	return None, false
}

// FromName returns the codec a log file's name declares, the way Spark's
// EventLogFileWriter.codecName reads it: the extension after the last dot,
// once ".compact" and ".inprogress" are stripped. A name without a codec
// extension is None.
func FromName(name string) Codec {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.TrimSuffix(name, ".inprogress")
	name = strings.TrimSuffix(name, ".compact")
	name = strings.TrimSuffix(name, ".inprogress")
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return None
	}
	c, _ := FromExt(name[i+1:])
	return c
}

// Magic bytes that open each codec's stream.
var (
	magicLZ4          = []byte("LZ4Block")
	magicSnappyJava   = []byte("\x82SNAPPY\x00")
	magicSnappyFramed = []byte("\xff\x06\x00\x00sNaPpY")
	magicZstd         = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicGzip         = []byte{0x1f, 0x8b}
)

// SniffLen is how many leading bytes Sniff needs to recognise every codec.
const SniffLen = 10

// Sniff recognises a codec by the first bytes of a stream (SniffLen of them
// suffice). It returns None when no codec's magic matches, which includes
// plain JSON lines and a head too short to tell.
func Sniff(head []byte) Codec {
	switch {
	case bytes.HasPrefix(head, magicLZ4):
		return LZ4
	case bytes.HasPrefix(head, magicSnappyJava), bytes.HasPrefix(head, magicSnappyFramed):
		return Snappy
	case len(head) >= 3 && head[0] == 'Z' && head[1] == 'V' && head[2] <= lzfTypeCompressed:
		return LZF
	case bytes.HasPrefix(head, magicZstd):
		return ZSTD
	case len(head) >= 4 && head[0]&0xf0 == 0x50 && head[1] == 0x2a && head[2] == 0x4d && head[3] == 0x18:
		return ZSTD // a zstd skippable frame
	case bytes.HasPrefix(head, magicGzip):
		return Gzip
	}
	return None
}

// Error is a problem in a compressed stream at a compressed byte offset.
type Error struct {
	Codec  Codec
	Offset int64 // compressed bytes before the problem (for zstd and gzip: bytes read so far)
	Msg    string
	Err    error // wrapped cause, e.g. io.ErrUnexpectedEOF; may be nil
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%s: offset %d: %s", e.Codec, e.Offset, e.Msg)
	}
	if e.Msg == "" {
		return fmt.Sprintf("%s: offset %d: %v", e.Codec, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: offset %d: %s: %v", e.Codec, e.Offset, e.Msg, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// NewReader returns a reader of the decoded bytes of r, which holds a stream
// of codec c. Close releases the decoder; it does not close r.
func NewReader(c Codec, r io.Reader) (io.ReadCloser, error) {
	switch c {
	case None, "":
		return io.NopCloser(r), nil
	case LZ4:
		return newBlockReader(LZ4, r, &lz4Decoder{}), nil
	case Snappy:
		return newBlockReader(Snappy, r, &snappyDecoder{}), nil
	case LZF:
		return newBlockReader(LZF, r, &lzfDecoder{}), nil
	case ZSTD:
		return newZstdReader(r)
	case Gzip:
		return newGzipReader(r), nil
	}
	return nil, fmt.Errorf("codec: unknown codec %q", string(c))
}

// countingReader counts the bytes read through it, for error offsets.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// bufferSize is the read-ahead under the block decoders: a few Spark blocks.
const bufferSize = 128 << 10

func bufferedReader(r io.Reader) *bufio.Reader {
	if br, ok := r.(*bufio.Reader); ok && br.Size() >= bufferSize {
		return br
	}
	return bufio.NewReaderSize(r, bufferSize)
}

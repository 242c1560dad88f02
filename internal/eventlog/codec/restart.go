package codec

import (
	"fmt"
	"io"
)

// Restart is a point where decoding can start again without the bytes
// before it: the compressed offset of a block, chunk, frame or member
// boundary, and how many decoded bytes precede that boundary. The zero
// Restart is the start of the stream.
//
// What a boundary is depends on the codec:
//   - lz4 (LZ4Block), snappy-java and lzf: every block or chunk; each is
//     self-contained.
//   - snappy framing format: none past the start (the format is not what
//     Spark writes; its chunk headers cannot be told from snappy-java's
//     without the stream header).
//   - zstd: every frame. Spark's continuous zstd stream closes a frame on
//     each flush (zstd-jni's setCloseFrameOnFlush(true), SPARK-29322), so a
//     running log has many; a log compressed by the command-line tool is
//     one frame and restarts from its start. Never inside a frame: the
//     blocks need the frame's window history.
//   - gzip: every member (Databricks' rotated parts are one member each).
type Restart struct {
	Comp    int64 // compressed offset of the boundary
	Decoded int64 // decoded bytes before it
}

// RestartReader is a decoded stream that reports its restart points.
type RestartReader interface {
	io.ReadCloser
	// Restart returns the latest restart point at or before the decoded
	// bytes Read has returned so far.
	Restart() Restart
}

// Resume returns a reader of the decoded bytes of a stream of codec c that
// starts again at restart point at: r's first byte is the stream's
// compressed byte at.Comp. Offsets in errors and restart points count from
// the start of the whole stream. Resume(c, r, Restart{}) reads a whole
// stream, as NewReader does.
//
// at must be a point a reader of the same stream reported (or the zero
// Restart); any other offset decodes garbage, which is reported as an error
// naming the offset, never a panic.
func Resume(c Codec, r io.Reader, at Restart) (RestartReader, error) {
	if at.Comp < 0 || at.Decoded < 0 {
		return nil, fmt.Errorf("codec: restart point %d (decoded %d) is negative", at.Comp, at.Decoded)
	}
	switch c {
	case None, "":
		return &plainReader{r: r, at: at}, nil
	case LZ4:
		return resumeBlockReader(LZ4, r, &lz4Decoder{inStream: at.Comp > 0}, at), nil
	case Snappy:
		d := &snappyDecoder{}
		if at.Comp > 0 {
			d.mode = snappyJava // the only mode with restart points past the start
		}
		return resumeBlockReader(Snappy, r, d, at), nil
	case LZF:
		return resumeBlockReader(LZF, r, &lzfDecoder{}, at), nil
	case ZSTD:
		return resumeZstdReader(r, at)
	case Gzip:
		return resumeGzipReader(r, at), nil
	}
	return nil, fmt.Errorf("codec: unknown codec %q", string(c))
}

// plainReader is an uncompressed stream: every byte is a restart point.
type plainReader struct {
	r  io.Reader
	at Restart
}

func (p *plainReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.at.Comp += int64(n)
	p.at.Decoded += int64(n)
	return n, err
}

func (p *plainReader) Restart() Restart { return p.at }

func (p *plainReader) Close() error { return nil }

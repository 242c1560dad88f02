package codec

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/pierrec/lz4/v4"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// decodeAll decodes stream data of codec c, returning what was delivered
// before the first error and that error (nil at a clean end).
func decodeAll(t testing.TB, c Codec, data []byte) ([]byte, error) {
	t.Helper()
	r, err := NewReader(c, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader(%s): %v", c, err)
	}
	defer r.Close()
	var out bytes.Buffer
	// Small reads exercise the partial-block paths; io.Copy would use WriteTo.
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compressedFiles lists the codec files of the shared compressed test set.
func compressedFiles(t testing.TB) []string {
	t.Helper()
	dir := sparktest.Path(t, "compressed")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && FromName(e.Name()) != None {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	if len(names) == 0 {
		t.Fatalf("no compressed logs in %s", dir)
	}
	return names
}

// appName is the plain log name for a compressed file name.
func appName(name string) string {
	name = filepath.Base(name)
	name = name[:strings.IndexByte(name+".", '.')]
	return strings.TrimSuffix(name, "-cut")
}

// encodeLZ4Block writes plain as an lz4-java LZ4Block stream with blocks of
// blockSize, compressing where it helps, then the end block.
func encodeLZ4Block(plain []byte, blockSize int) []byte {
	level := 0
	for 1<<(level+lz4LevelBase) < blockSize {
		level++
	}
	var out bytes.Buffer
	comp := make([]byte, lz4.CompressBlockBound(blockSize))
	header := func(method byte, stored, decoded int, sum uint32) {
		var h [lz4HeaderLen]byte
		copy(h[:], magicLZ4)
		h[8] = method | byte(level)
		binary.LittleEndian.PutUint32(h[9:], uint32(stored))
		binary.LittleEndian.PutUint32(h[13:], uint32(decoded))
		binary.LittleEndian.PutUint32(h[17:], sum)
		out.Write(h[:])
	}
	for len(plain) > 0 {
		blk := plain[:min(blockSize, len(plain))]
		plain = plain[len(blk):]
		sum := xxh32(blk, lz4ChecksumSeed) & lz4ChecksumMask
		n, err := lz4.CompressBlock(blk, comp, nil)
		if err != nil || n == 0 || n >= len(blk) {
			header(lz4MethodRaw, len(blk), len(blk), sum)
			out.Write(blk)
			continue
		}
		header(lz4MethodLZ4, n, len(blk), sum)
		out.Write(comp[:n])
	}
	header(lz4MethodRaw, 0, 0, 0)
	return out.Bytes()
}

// encodeSnappyJava writes plain as a snappy-java stream with chunks of
// chunkSize.
func encodeSnappyJava(plain []byte, chunkSize int) []byte {
	var out bytes.Buffer
	out.Write(magicSnappyJava)
	out.Write([]byte{0, 0, 0, 1, 0, 0, 0, 1})
	for len(plain) > 0 {
		blk := plain[:min(chunkSize, len(plain))]
		plain = plain[len(blk):]
		enc := snappy.Encode(nil, blk)
		out.Write(binary.BigEndian.AppendUint32(nil, uint32(len(enc))))
		out.Write(enc)
	}
	return out.Bytes()
}

func isUnexpectedEOF(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeSnappyFramed(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := snappy.NewBufferedWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

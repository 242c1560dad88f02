package codec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// fuzzLimit bounds what one fuzz input may decode to.
const fuzzLimit = 64 << 20

// seedFiles adds the heads of the shared real files of codec c to f: the
// first 4 KB of a real stream (its header, whole small blocks, then a cut
// one) keep each execution short.
func seedFiles(f *testing.F, c Codec) {
	dir := sparktest.Path(f, "compressed")
	matches, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, m := range matches {
		if FromName(m) != c {
			continue
		}
		b, err := os.ReadFile(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4<<10)])
	}
}

// decodeFuzz decodes data and reports the output and the error; it must
// never panic and never produce more than fuzzLimit bytes.
func decodeFuzz(t *testing.T, c Codec, data []byte) ([]byte, error) {
	r, err := NewReader(c, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	_, err = io.Copy(&out, io.LimitReader(r, fuzzLimit))
	return out.Bytes(), err
}

// FuzzLZ4Block decodes arbitrary input as LZ4Block, and round-trips the
// input through the test encoder (pierrec/lz4 blocks, own XXH32).
func FuzzLZ4Block(f *testing.F) {
	seedFiles(f, LZ4)
	f.Add(encodeLZ4Block([]byte("hello hello hello hello"), 1024))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeFuzz(t, LZ4, data)
		got, err := decodeFuzz(t, LZ4, encodeLZ4Block(data, 1<<10))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip: got %d bytes, %v; want %d bytes", len(got), err, len(data))
		}
	})
}

// FuzzSnappy decodes arbitrary input as a snappy-java or framed stream and
// round-trips the input through both formats' encoders.
func FuzzSnappy(f *testing.F) {
	seedFiles(f, Snappy)
	f.Add(encodeSnappyJava([]byte("hello hello hello hello"), 8))
	f.Add(encodeSnappyFramed(f, []byte("hello hello hello hello")))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeFuzz(t, Snappy, data)
		for _, enc := range [][]byte{encodeSnappyJava(data, 1<<10), encodeSnappyFramed(t, data)} {
			got, err := decodeFuzz(t, Snappy, enc)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("round trip: got %d bytes, %v; want %d bytes", len(got), err, len(data))
			}
		}
	})
}

// FuzzLZF decodes arbitrary input as an LZF stream, and checks the chunk
// decompressor against a plain byte-at-a-time reference decoder.
func FuzzLZF(f *testing.F) {
	seedFiles(f, LZF)
	f.Add([]byte{1, 'a', 'b', 0x40, 1, 0xe0, 9, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeFuzz(t, LZF, data)
		want, wantOK := lzfReference(data)
		got := make([]byte, len(want))
		err := lzfDecompress(data, got)
		if (err == nil) != wantOK || wantOK && !bytes.Equal(got, want) {
			t.Fatalf("lzfDecompress = %q, %v; reference %q, ok %v", got, err, want, wantOK)
		}
	})
}

// lzfReference is a deliberately simple LZF decoder: it appends byte by
// byte with no preset output size.
func lzfReference(src []byte) ([]byte, bool) {
	var out []byte
	for i := 0; i < len(src); {
		ctrl := int(src[i])
		i++
		if ctrl < 32 {
			for k := 0; k <= ctrl; k++ {
				if i >= len(src) {
					return nil, false
				}
				out = append(out, src[i])
				i++
			}
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			if i >= len(src) {
				return nil, false
			}
			n += int(src[i])
			i++
		}
		if i >= len(src) {
			return nil, false
		}
		back := (ctrl&0x1f)<<8 + int(src[i]) + 1
		i++
		if back > len(out) {
			return nil, false
		}
		for k := 0; k < n+2; k++ {
			out = append(out, out[len(out)-back])
		}
	}
	return out, true
}

// FuzzZstd decodes arbitrary input with the streaming reader and compares
// it with klauspost's one-shot DecodeAll (a separate code path of the same
// library: the only other decoder importable here).
func FuzzZstd(f *testing.F) {
	seedFiles(f, ZSTD)
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(fuzzLimit))
	if err != nil {
		f.Fatal(err)
	}
	defer dec.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeFuzz(t, ZSTD, data)
		want, wantErr := dec.DecodeAll(data, nil)
		if err == nil && wantErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("stream decoded %d bytes, DecodeAll %d", len(got), len(want))
		}
		if wantErr == nil && err != nil && len(want) < fuzzLimit {
			t.Fatalf("stream failed (%v) where DecodeAll decoded %d bytes", err, len(want))
		}
	})
}

package codec

import (
	"bytes"
	"io"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func benchmarkDecode(b *testing.B, c Codec, data []byte) {
	want, err := decodeAll(b, c, data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(want)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := NewReader(c, bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil || n != int64(len(want)) {
			b.Fatalf("decoded %d bytes, %v; want %d", n, err, len(want))
		}
		r.Close()
	}
}

// BenchmarkDecode decodes the largest shared log (412 KB) in each codec
// Spark writes; gzip is compress/gzip of the same log.
func BenchmarkDecode(b *testing.B) {
	for _, c := range []Codec{LZ4, Snappy, LZF, ZSTD} {
		b.Run(string(c), func(b *testing.B) {
			benchmarkDecode(b, c, readFile(b, sparktest.Path(b, "compressed", "local-1642039451826."+string(c))))
		})
	}
	b.Run("gzip", func(b *testing.B) {
		benchmarkDecode(b, Gzip, gzipBytes(b, readFile(b, sparktest.Path(b, "spark-events", "local-1642039451826"))))
	})
}

// BenchmarkZstdBig decodes the 39.6 MB NDS q66 log (one zstd frame).
func BenchmarkZstdBig(b *testing.B) {
	benchmarkDecode(b, ZSTD, readFile(b, sparktest.Path(b, "big", "application_1701368813061_0008.zstd")))
}

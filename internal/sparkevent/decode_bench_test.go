package sparkevent

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// bigLog decodes the large benchmark log (one zstd file) through the codec
// package.
func bigLog(b testing.TB) []byte {
	f, err := os.Open(sparktest.Path(b, "big", "application_1701368813061_0008.zstd"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r, err := codec.NewReader(codec.ZSTD, f)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	if len(out) != 39586408 {
		b.Fatalf("got %d decoded bytes, want 39586408", len(out))
	}
	return out
}

func BenchmarkDecodeLine(b *testing.B) {
	data := bigLog(b)
	lines := bytes.Split(data, []byte{'\n'})
	d := NewDecoder()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := sparktest.CPUTime()
	for range b.N {
		for _, ln := range lines {
			if len(ln) > 0 {
				d.DecodeLine(ln)
			}
		}
	}
	sparktest.ReportCPU(b, start)
}

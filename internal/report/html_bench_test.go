package report

import (
	"bytes"
	"io"
	"testing"
)

// benchInput is the big real log (39.6 MB decoded, 12,987 tasks).
func benchInput(b *testing.B) *Input {
	b.Helper()
	return realInput(b, "big/application_1701368813061_0008.zstd")
}

func BenchmarkWriteText(b *testing.B) {
	in := benchInput(b)
	var buf bytes.Buffer
	if err := WriteText(&buf, []*Input{in}, TextOptions{Color: true}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := WriteText(io.Discard, []*Input{in}, TextOptions{Color: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteHTML(b *testing.B) {
	in := benchInput(b)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []*Input{in}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := WriteHTML(io.Discard, []*Input{in}); err != nil {
			b.Fatal(err)
		}
	}
}

package eventlog

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// readPartFromStart is how the ingester read a compressed part before
// ReadPart: decode from the part's first byte, drop the off bytes already
// read, return what follows.
func readPartFromStart(ctx context.Context, l *Log, off int64) ([]byte, error) {
	rd, err := l.NewReader(ctx)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	if _, err := io.CopyN(io.Discard, rd, off); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, err
	}
	return io.ReadAll(rd)
}

// BenchmarkTailGrowing tails a compressed log that grows 64 KiB (stored)
// at a time, reading each growth in one turn: "resume" with ReadPart,
// "from-start" by decoding the part again from its first byte. The log is
// 16 copies of the largest shared Spark log in a row (Spark's block and
// frame structure; 1 MB lz4, 1 MB zstd, 6.6 MB decoded). MB/s is decoded
// bytes delivered; decoded-B/turn counts what the decoder produced per turn
// (delivered plus dropped).
func BenchmarkTailGrowing(b *testing.B) {
	for _, c := range []string{"lz4", "zstd"} {
		one, err := os.ReadFile(sparktest.Path(b, "compressed", "local-1642039451826."+c))
		if err != nil {
			b.Fatal(err)
		}
		src := bytes.Repeat(one, 16)
		for _, mode := range []string{"resume", "from-start"} {
			b.Run(c+"/"+mode, func(b *testing.B) {
				dst := filepath.Join(b.TempDir(), "app-1."+c+".inprogress")
				ctx := context.Background()
				var delivered, decoded, turns int64
				b.ReportAllocs()
				for b.Loop() {
					delivered, decoded, turns = 0, 0, 0
					var pos PartPos
					for size := 64 << 10; ; size = min(len(src), size+64<<10) {
						b.StopTimer()
						if err := os.WriteFile(dst, src[:size], 0o644); err != nil {
							b.Fatal(err)
						}
						logs, err := Open(ctx, dst, OpenOptions{})
						if err != nil {
							b.Fatal(err)
						}
						l := logs[0]
						b.StartTimer()
						var data []byte
						if mode == "resume" {
							decoded += pos.Decoded - pos.CompDecoded // dropped again
							data, pos, _, err = l.ReadPart(ctx, 0, pos, 1<<40)
						} else {
							decoded += delivered
							data, err = readPartFromStart(ctx, l, delivered)
						}
						if err != nil {
							b.Fatal(err)
						}
						delivered += int64(len(data))
						decoded += int64(len(data))
						turns++
						if size == len(src) {
							break
						}
					}
				}
				b.SetBytes(delivered)
				b.ReportMetric(float64(decoded)/float64(turns), "decoded-B/turn")
				b.ReportMetric(float64(turns), "turns")
			})
		}
	}
}

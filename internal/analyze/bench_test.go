package analyze_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// bigLog returns the decoded large benchmark log (39.6 MB, 12,987 tasks).
func bigLog(b *testing.B) []byte {
	b.Helper()
	ctx := context.Background()
	logs, err := eventlog.Open(ctx, sparktest.Path(b, "big", "application_1701368813061_0008.zstd"), eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	r, err := logs[0].NewReader(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkAnalyze times Analyze alone on the replayed big log; compare
// with replay's BenchmarkReplay on the same bytes (SetBytes is the
// decoded size in both, so MB/s compare directly).
func BenchmarkAnalyze(b *testing.B) {
	data := bigLog(b)
	a, _, err := replay.Read(context.Background(), bytes.NewReader(data), replay.Options{Name: "big"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := sparktest.CPUTime()
	for range b.N {
		r := analyze.Analyze(a)
		if len(r.Stages) == 0 {
			b.Fatal("no stages")
		}
	}
	sparktest.ReportCPU(b, start)
}

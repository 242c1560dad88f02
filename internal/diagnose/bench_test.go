package diagnose_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// BenchmarkDiagnose times every rule of All on the analyzed big log.
func BenchmarkDiagnose(b *testing.B) {
	ctx := context.Background()
	logs, err := eventlog.Open(ctx, sparktest.Path(b, "big", "application_1701368813061_0008.zstd"), eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	rd, err := logs[0].NewReader(ctx)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(rd)
	rd.Close()
	if err != nil {
		b.Fatal(err)
	}
	a, _, err := replay.Read(ctx, bytes.NewReader(data), replay.Options{Name: "big"})
	if err != nil {
		b.Fatal(err)
	}
	p := &diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		diagnose.Run(p, diagnose.All)
	}
}

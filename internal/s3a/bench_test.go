package s3a_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/s3a"
)

// BenchmarkParse reads the real magic committer's summary of 240 files
// (20 KiB: 100 file names, 183 metrics, the IOStatistics) and lists its
// operations, as the join does for each write.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "spark-3.5.9", "magic", "many-files", "_SUCCESS"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := s3a.Parse("_SUCCESS", data)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Operations()) == 0 {
			b.Fatal("no operations")
		}
	}
}

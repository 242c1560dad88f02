package s3a_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/s3a"
)

// FuzzParse feeds hostile _SUCCESS files to the reader: it returns a
// summary or an error, never panics, and a summary's operations are
// never negative.
func FuzzParse(f *testing.F) {
	for _, rel := range []string{"magic/few-files", "classic/few-files"} {
		b, err := os.ReadFile(filepath.Join("testdata", "spark-3.5.9", rel, "_SUCCESS"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name":"org.apache.hadoop.fs.s3a.commit.files.SuccessData/1","iostatistics":{"meanstatistics":{"a.mean":{"samples":-1,"sum":-5},"a.failures.mean":{}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := s3a.Parse("fuzz/_SUCCESS", b)
		if err != nil {
			return
		}
		for _, op := range s.Operations() {
			if op.DurationMs < 0 {
				t.Fatalf("operation %+v has a negative duration", op)
			}
		}
		_ = s.Bytes()
	})
}

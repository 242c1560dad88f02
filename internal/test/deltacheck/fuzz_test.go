package deltacheck_test

import (
	"os"
	"testing"
	"testing/fstest"

	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
)

// FuzzCheck feeds arbitrary commit files to the checker: it must report
// errors, never panic.
func FuzzCheck(f *testing.F) {
	dir := writeTable(f)
	for _, v := range []int{0, 1, 7} {
		b, err := os.ReadFile(logFile(dir, v))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"add":{"path":1,"partitionValues":[],"size":"x","modificationTime":0,"dataChange":true}}`))
	first, err := os.ReadFile(logFile(dir, 0))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{
			"_delta_log/00000000000000000000.json": {Data: first},
			"_delta_log/00000000000000000001.json": {Data: data},
		}
		deltacheck.Check(fsys)
	})
}

package sparkevent

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// checkFastPath fails when the fast path decodes a line differently from
// the general decoder. It reports whether the fast path took the line.
func checkFastPath(t *testing.T, d *Decoder, line []byte) bool {
	t.Helper()
	fast := d.fastDecode(line)
	if fast == nil {
		return false
	}
	slow, err := d.decodeSlow(line)
	if err != nil {
		t.Fatalf("fast path accepted a line the general decoder rejects (%v): %.300q", err, line)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast path differs from the general decoder\nfast %+v\nslow %+v\nline %.300q", fast, slow, line)
	}
	return true
}

// TestFastPathMatchesGeneralDecoder runs every task line of the shared
// logs through both decoders.
func TestFastPathMatchesGeneralDecoder(t *testing.T) {
	dirs := []string{sparktest.Path(t, "spark-events"), sparktest.Path(t, "extra", "historical", "spark-events")}
	d := NewDecoder()
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			if fi, err := os.Stat(f); err != nil || fi.IsDir() {
				continue
			}
			t.Run(filepath.Base(f), func(t *testing.T) {
				fh, err := os.Open(f)
				if err != nil {
					t.Fatal(err)
				}
				defer fh.Close()
				sc := bufio.NewScanner(fh)
				sc.Buffer(nil, 1<<26)
				taskLines, fast := 0, 0
				for sc.Scan() {
					ln := sc.Bytes()
					if hasPrefix(ln, prefixTaskEnd) || hasPrefix(ln, prefixTaskStart) {
						taskLines++
						if checkFastPath(t, d, ln) {
							fast++
						}
					}
				}
				if fast != taskLines {
					t.Errorf("got %d of %d task lines on the fast path, want all", fast, taskLines)
				}
			})
		}
	}
}

// FuzzFastPath: whenever the fast path takes a line, it must decode it as
// the general decoder does.
func FuzzFastPath(f *testing.F) {
	fh, err := os.Open(sparktest.Path(f, "spark-events", "app-20161115172038-0000"))
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() && n < 12 {
		if ln := sc.Bytes(); hasPrefix(ln, prefixTaskEnd) || hasPrefix(ln, prefixTaskStart) {
			f.Add(append([]byte(nil), ln...))
			n++
		}
	}
	fh.Close()
	f.Add([]byte(`{"Event":"SparkListenerTaskEnd","Stage ID":1,"Task Info":{"Task ID":2,"Partition ID":"x","Accumulables":[{"ID":1,"Name":"a","Update":3,"Value":"4"}]},"Task Metrics":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastPath(t, NewDecoder(), line)
	})
}

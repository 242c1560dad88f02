package sparkevent

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
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
	// The big log is the benchmarks' (Spark 3.1.3: no "Partition ID", task
	// metrics' groups in another order than the table's).
	t.Run("big", func(t *testing.T) {
		taskLines := 0
		for ln := range bytes.SplitSeq(bigLog(t), []byte{'\n'}) {
			if hasPrefix(ln, prefixTaskEnd) || hasPrefix(ln, prefixTaskStart) {
				taskLines++
				if !checkFastPath(t, d, ln) {
					t.Fatalf("task line %d not on the fast path: %.300q", taskLines, ln)
				}
			}
		}
		if taskLines != 25974 {
			t.Errorf("got %d task lines, want 25974", taskLines)
		}
	})
}

// keyOrderLines have keys out of Spark's order, repeated within "Task
// Info", unknown, or in groups Spark writes in another order: the key
// orders of decode_keys.go must read them as the general decoder does.
var keyOrderLines = []string{
	`{"Event":"SparkListenerTaskEnd","Task Info":{"Host":"h","Task ID":2,"Task ID":3,"Partition ID":4,"Index":1,"Accumulables":[{"Value":"4","ID":1,"Metadata":"sql","Update":3,"Name":"a"},{"Name":"b","ID":5,"Update":"6","Value":7,"Extra":1}]},"Stage ID":1,"Task Metrics":{"Input Metrics":{"Records Read":2,"Bytes Read":1},"Executor Run Time":5,"Shuffle Read Metrics":{"Push Based Shuffle":{"Merged Local Bytes Read":9}},"Updated Blocks":[],"Result Size":7},"Task Executor Metrics":{"MajorGCTime":3,"JVMHeapMemory":1,"Other":2}}`,
	`{"Event":"SparkListenerTaskStart","Stage Attempt ID":7,"Stage ID":1,"Task Info":{"Killed":true,"IDX":1,"Index":3,"Launch Time":9,"Task ID":4}}`,
	`{"Event":"SparkListenerTaskEnd","Task Metrics":{"Executor Deserialize Time":1,"Input Metrics":{"Bytes Read":3},"Input Metrics":{"Records Read":4},"Result Size":5},"Task Info":{"Task ID":1}}`,
}

// TestFastPathKeyOrders: lines whose keys are not in Spark's order still
// take the fast path, and decode as the general decoder does.
func TestFastPathKeyOrders(t *testing.T) {
	for i, ln := range keyOrderLines {
		if !checkFastPath(t, NewDecoder(), []byte(ln)) {
			t.Errorf("line %d: got the general path, want the fast path", i)
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
	for _, ln := range keyOrderLines {
		f.Add([]byte(ln))
	}
	for _, c := range accumLines {
		f.Add([]byte(`{"Event":"SparkListenerTaskEnd","Task Info":{"Accumulables":[` + c.elem + `]}}`))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastPath(t, NewDecoder(), line)
	})
}

package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestReplayRefusesHugeLine: a line past MaxLine stops the replay with
// ErrLineTooLong naming the line and its byte offset, without reading the
// rest of an endless input (issue 14, item 5).
func TestReplayRefusesHugeLine(t *testing.T) {
	head := appStart + "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"Timestamp\":1}\n"
	endless := io.MultiReader(strings.NewReader(head), zeros{}) // /dev/zero behind a log name
	_, _, err := Read(context.Background(), endless, Options{Name: "zeros", MaxLine: 1 << 20})
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("got %v, want ErrLineTooLong", err)
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), "zeros line 3") || !strings.Contains(err.Error(), "at byte "+strconv.Itoa(len(head))) {
		t.Errorf("got %v, want line 3 at byte %d", err, len(head))
	}
	// A line just under the bound is read.
	line := bytes.Repeat([]byte{' '}, 1<<20-1)
	if _, _, err := Read(context.Background(), bytes.NewReader(append(append([]byte(head), line...), '\n')),
		Options{MaxLine: 1 << 20}); err != nil {
		t.Errorf("a line of MaxLine-1 bytes: %v", err)
	}
}

// TestTailRefusesHugeLine: a tailed log whose held-back line passes
// MaxLine fails on Apply and holds nothing more.
func TestTailRefusesHugeLine(t *testing.T) {
	tail := NewTail(Options{Name: "zeros", MaxLine: 1 << 20})
	if err := tail.Apply(tail.Decode([]byte(appStart))); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 256<<10)
	var err error
	for i := 0; i < 8 && err == nil; i++ {
		err = tail.Apply(tail.Decode(chunk))
	}
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("got %v, want ErrLineTooLong", err)
	}
	if tail.Pending() != 0 {
		t.Errorf("still holding %d bytes after refusing the line", tail.Pending())
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// hostileTaskEnd is a task end of about n accumulables written as other
// writers than Spark write JSON (spaces after ':' and ',', "Event" last),
// which Spark's own prefix does not match.
func hostileTaskEnd(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"Stage ID": 0, "Stage Attempt ID": 0, "Task Type": "ResultTask", "Task End Reason": {"Reason": "Success"}, ` +
		`"Task Info": {"Task ID": 7, "Index": 0, "Attempt": 0, "Launch Time": 1000, "Executor ID": "1", "Host": "h", ` +
		`"Locality": "PROCESS_LOCAL", "Speculative": false, "Getting Result Time": 0, "Finish Time": 2000, "Failed": false, ` +
		`"Killed": false, "Accumulables": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"ID": %d, "Name": "acc%d", "Update": "%d", "Value": "%d", "Internal": false, "Count Failed Values": true}`, 1000+i, i, i, i)
	}
	b.WriteString(`]}, "Event": "SparkListenerTaskEnd"}` + "\n")
	return b.Bytes()
}

// TestLineMemoryBounded: replaying a log with one hostile 8 MB task end
// allocates a small multiple of the line, its accumulables kept (issue 32, item 7: 55 MB took
// 1.3 GB, 24x, through the general decoder's JSON tree, buffers grown by
// a quarter at a time and a parser keeping its memory).
func TestLineMemoryBounded(t *testing.T) {
	head := appStart + "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"Timestamp\":1}\n"
	line := hostileTaskEnd(64_000)
	log := append([]byte(head), line...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, st, err := Read(context.Background(), bytes.NewReader(log), Options{Name: "hostile"})
	runtime.ReadMemStats(&after)
	if err != nil || st.BadLines != 0 {
		t.Fatalf("replay: %v, %d bad lines", err, st.BadLines)
	}
	_ = a
	alloc := after.TotalAlloc - before.TotalAlloc
	if ratio := float64(alloc) / float64(len(line)); ratio > 8 {
		t.Errorf("replaying a %d-byte line allocated %d bytes (%.1fx the line), want at most 8x", len(line), alloc, ratio)
	}
}

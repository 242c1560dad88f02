package replay

import (
	"bytes"
	"context"
	"errors"
	"io"
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

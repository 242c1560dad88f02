package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// TestProgress checks the bar stays silent for short reads, then redraws
// at most once per interval, and erases itself at the end.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&out, "app.log", 1000)
	p.Now = func() time.Time { return now }
	p.Add(100)
	now = now.Add(400 * time.Millisecond)
	p.Add(100)
	if out.Len() != 0 {
		t.Fatalf("got %q before the delay, want nothing", out.String())
	}
	now = now.Add(200 * time.Millisecond)
	p.Add(300)
	if got := out.String(); !strings.Contains(got, " 50%") || !strings.HasPrefix(got, "\r") {
		t.Errorf("got %q, want a redrawn line at 50%%", got)
	}
	n := out.Len()
	now = now.Add(50 * time.Millisecond)
	p.Add(100)
	if out.Len() != n {
		t.Errorf("got a redraw 50ms after the last, want at most one per 100ms")
	}
	now = now.Add(100 * time.Millisecond)
	p.Add(700) // past the total: a compressed log decodes to more
	if got := out.String()[n:]; strings.Contains(got, "%") || !strings.Contains(got, "1.3 KiB") {
		t.Errorf("got %q past the total, want the byte count without a percentage", got)
	}
	p.Finish()
	if !strings.HasSuffix(out.String(), "\r\x1b[K") {
		t.Errorf("got %q at the end, want the line erased", out.String())
	}
}

// TestProgressStored checks a compressed log's bar follows the stored
// bytes read, not the (larger) decoded ones.
func TestProgressStored(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	stored := int64(0)
	p := newProgress(&out, "app.zstd", 400)
	p.Now = func() time.Time { return now }
	p.Stored = func() int64 { return stored }
	p.Add(1)
	now = now.Add(time.Second)
	stored = 100
	p.Add(2000)
	if got := out.String(); !strings.Contains(got, " 25%") || !strings.Contains(got, "100 B of 400 B") {
		t.Errorf("got %q, want 25%% from the stored bytes", got)
	}
}

func TestProgressReaderCounts(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, "x", 0)
	n, err := io.Copy(io.Discard, p.Reader(strings.NewReader(strings.Repeat("a", 12345))))
	if err != nil || n != 12345 || p.done != 12345 {
		t.Errorf("got %d bytes copied, %d counted, err %v; want 12345", n, p.done, err)
	}
	p.Finish()
	if out.Len() != 0 {
		t.Errorf("got %q for a read shorter than the delay, want nothing", out.String())
	}
}

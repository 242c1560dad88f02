package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/units"
)

// progress draws a one-line progress bar for reading a long log. It stays
// silent for the first Delay, so short logs never flicker, and redraws at
// most every Interval. The caller only creates one when the output is a
// terminal.
type progress struct {
	W     io.Writer
	Label string
	Total int64 // bytes expected; 0 or less when unknown
	// Stored, when set, reports the stored (compressed) bytes read so far,
	// which is what Total counts for a compressed log; the bytes read
	// through Reader are decoded bytes.
	Stored   func() int64
	Width    int // columns of the bar itself; 0 means 30
	Delay    time.Duration
	Interval time.Duration
	Now      func() time.Time // nil means time.Now

	start, last time.Time
	done        int64 // decoded bytes read through Reader or added
	drawn       bool
}

// newProgress returns a progress bar writing to w with the usual timings.
func newProgress(w io.Writer, label string, total int64) *progress {
	return &progress{W: w, Label: label, Total: total, Delay: 500 * time.Millisecond, Interval: 100 * time.Millisecond}
}

func (p *progress) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Reader counts what is read through r as progress.
func (p *progress) Reader(r io.Reader) io.Reader { return &progressReader{r: r, p: p} }

type progressReader struct {
	r io.Reader
	p *progress
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.Add(int64(n))
	return n, err
}

// Add records n more bytes and redraws when it is time to.
func (p *progress) Add(n int64) {
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	p.done += n
	if now.Sub(p.start) < p.Delay || (p.drawn && now.Sub(p.last) < p.Interval) {
		return
	}
	p.last, p.drawn = now, true
	io.WriteString(p.W, "\r"+p.line(now)+"\x1b[K")
}

// Finish erases the bar, leaving the terminal line clean.
func (p *progress) Finish() {
	if p.drawn {
		io.WriteString(p.W, "\r\x1b[K")
	}
	p.drawn = false
}

func (p *progress) line(now time.Time) string {
	rate := ""
	if secs := now.Sub(p.start).Seconds(); secs > 0 {
		rate = fmt.Sprintf("  %s/s", units.Bytes(int64(float64(p.done)/secs)))
	}
	label := units.TruncateMiddle(units.OneLine(p.Label), 40)
	done := p.done
	if p.Stored != nil {
		done = p.Stored()
	}
	// Without a total, or past it (decoded bytes of a compressed log with
	// no Stored counter), only the count is shown.
	if p.Total <= 0 || done > p.Total {
		return fmt.Sprintf("reading %s  %s%s", label, units.Bytes(p.done), rate)
	}
	w := p.Width
	if w <= 0 {
		w = 30
	}
	filled := int(int64(w) * done / p.Total)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", w-filled)
	return fmt.Sprintf("reading %s ▕%s▏ %3d%%  %s of %s%s", label, bar, 100*done/p.Total,
		units.Bytes(done), units.Bytes(p.Total), rate)
}

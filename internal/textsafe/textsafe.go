// Package textsafe makes text from logs and heap dumps safe to print on a
// terminal. A Spark application name, a job description or a Java class
// name is data anyone may set: with an escape sequence in it, a report
// printed on a terminal could set its title, move the cursor, hide lines
// or rewrite what was printed before; with a bidirectional override
// (U+202E) it reads backwards. Writer escapes every control character
// but newline and tab, every bidirectional control and every invalid
// UTF-8 byte, as Go escapes them (\x1b, \u202e), and lets through only
// the colour codes sparkdx's own text renderers write.
package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Writer escapes what is written to it (see the package comment) before
// passing it on. Call Flush at the end: a rune cut between two writes
// waits for its end.
type Writer struct {
	w    io.Writer
	pend []byte // an incomplete rune or colour code at the end of a write
	out  []byte
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) written unless the
// underlying writer fails.
func (t *Writer) Write(p []byte) (int, error) {
	data := p
	if len(t.pend) > 0 {
		data = append(t.pend, p...)
		t.pend = nil
	}
	t.out = t.out[:0]
	for i := 0; i < len(data); {
		n, keep := t.one(data[i:])
		if keep {
			t.pend = append(t.pend[:0], data[i:]...)
			break
		}
		i += n
	}
	if _, err := t.w.Write(t.out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes, escaped, what waits for the rest of a rune.
func (t *Writer) Flush() error {
	if len(t.pend) == 0 {
		return nil
	}
	t.out = t.out[:0]
	for _, c := range t.pend {
		t.out = fmt.Appendf(t.out, `\x%02x`, c)
	}
	t.pend = nil
	_, err := t.w.Write(t.out)
	return err
}

// one appends the escaped form of the rune or colour code at the start of
// b to t.out and returns its length; keep says b may be the start of one
// cut at the end of a write.
func (t *Writer) one(b []byte) (n int, keep bool) {
	c := b[0]
	switch {
	case c == '\n' || c == '\t':
		t.out = append(t.out, c)
		return 1, false
	case c == 0x1b:
		if n := colour(b); n > 0 {
			t.out = append(t.out, b[:n]...)
			return n, false
		}
		if len(b) < maxColour && colourPrefix(b) {
			return 0, true
		}
		t.out = append(t.out, `\x1b`...)
		return 1, false
	case c < 0x20 || c == 0x7f:
		t.out = fmt.Appendf(t.out, `\x%02x`, c)
		return 1, false
	case c < utf8.RuneSelf:
		t.out = append(t.out, c)
		return 1, false
	}
	if !utf8.FullRune(b) {
		return 0, true
	}
	r, size := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError && size == 1:
		t.out = fmt.Appendf(t.out, `\x%02x`, c)
	case unsafeRune(r):
		t.out = fmt.Appendf(t.out, `\u%04x`, r)
	default:
		t.out = append(t.out, b[:size]...)
	}
	return size, false
}

// unsafeRune: C1 controls, and the bidirectional controls (Unicode's
// Bidi_Control) and line and paragraph separators, which reorder or
// break what a terminal shows.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// colours are the SGR codes sparkdx's renderers write (report's style).
var colours = []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[34m", "\x1b[36m", "\x1b[90m"}

const maxColour = len("\x1b[31m")

// colour is the length of the colour code b starts with, or 0.
func colour(b []byte) int {
	for _, c := range colours {
		if len(b) >= len(c) && string(b[:len(c)]) == c {
			return len(c)
		}
	}
	return 0
}

// colourPrefix says whether b (shorter than any code) begins one.
func colourPrefix(b []byte) bool {
	for _, c := range colours {
		if len(b) < len(c) && strings.HasPrefix(c, string(b)) {
			return true
		}
	}
	return false
}

// String is s escaped as Writer escapes it, for one line of text (an
// error message).
func String(s string) string {
	var b strings.Builder
	w := NewWriter(&b)
	w.Write([]byte(s))
	w.Flush()
	return b.String()
}

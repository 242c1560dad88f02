package textsafe

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ümlaut, 日本語\n\tnext", "plain text, ümlaut, 日本語\n\tnext"},
		{"\x1b]0;owned\x07title", `\x1b]0;owned\x07title`},
		{"\x1b[2J\x1b[Hcleared", `\x1b[2J\x1b[Hcleared`},
		{"evil\u202etxt.exe", `evil\u202etxt.exe`},
		{"a\u2066b\u2069c\u200fd", `a\u2066b\u2069c\u200fd`},
		{"cr\roverwrite", `cr\x0doverwrite`},
		{"bad \xff byte", `bad \xff byte`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"\x1b[31mred\x1b[0m", "\x1b[31mred\x1b[0m"}, // the renderers' own colours
		{"cut at the end \xe6\x97", `cut at the end \xe6\x97`},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWriterSplit: a rune or colour code cut between two writes comes out
// whole.
func TestWriterSplit(t *testing.T) {
	in := "日本\x1b[31mred\x1b[0m\u202e!"
	for cut := range len(in) + 1 {
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write([]byte(in[:cut]))
		w.Write([]byte(in[cut:]))
		w.Flush()
		if want := String(in); b.String() != want {
			t.Errorf("cut at %d: got %q, want %q", cut, b.String(), want)
		}
	}
}

// FuzzWriter: whatever is written, no byte that drives a terminal comes
// out but newline, tab and the renderers' colour codes, and the output is
// valid UTF-8.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("\x1b]8;;http://evil\x07link\x1b]8;;\x07"), 3)
	f.Add([]byte("a\u202eb\x1b[31mc"), 1)
	f.Fuzz(func(t *testing.T, p []byte, cut int) {
		var b bytes.Buffer
		w := NewWriter(&b)
		cut = min(max(cut, 0), len(p))
		w.Write(p[:cut])
		w.Write(p[cut:])
		w.Flush()
		out := b.Bytes()
		if !utf8.Valid(out) {
			t.Fatalf("output %q is not valid UTF-8", out)
		}
		for i := 0; i < len(out); {
			if out[i] == 0x1b {
				if n := colour(out[i:]); n > 0 {
					i += n
					continue
				}
				t.Fatalf("escape at %d of %q", i, out)
			}
			r, size := utf8.DecodeRune(out[i:])
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || unsafeRune(r) {
				t.Fatalf("unsafe rune %U at %d of %q", r, i, out)
			}
			i += size
		}
		if strings.Count(string(p), "\n") != bytes.Count(out, []byte{'\n'}) {
			t.Errorf("newlines changed: %q -> %q", p, out)
		}
	})
}

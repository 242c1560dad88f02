package eventlog

import (
	"bytes"
	"strings"
	"testing"
)

// TestRawString checks the word-at-a-time string scan against a byte-by-byte
// reading of the same input, with the closing quote and escapes placed on
// every side of the 8-byte word boundaries.
func TestRawString(t *testing.T) {
	var cases []string
	for n := 0; n <= 20; n++ {
		body := strings.Repeat("a", n)
		cases = append(cases,
			`"`+body+`"`,
			`"`+body+`"tail,"x"`,
			`"`+body+`\"b"`,
			`"`+body+`\\"`,
			`"`+body+`\u00e9zz"`,
			`"`+body, // unterminated
			`"`+body+`\`,
			"\"\xff\x80"+body+"\"", // high bytes never match
		)
	}
	for _, in := range cases {
		t.Run(in, func(t *testing.T) {
			s := scanner{b: []byte(in)}
			got, gotEsc := s.rawString()
			want, wantEsc, wantEnd, wantBad := rawStringByBytes([]byte(in))
			if !bytes.Equal(got, want) || gotEsc != wantEsc || s.i != wantEnd || s.bad != wantBad {
				t.Errorf("got %q esc=%v end=%d bad=%v, want %q esc=%v end=%d bad=%v",
					got, gotEsc, s.i, s.bad, want, wantEsc, wantEnd, wantBad)
			}
		})
	}
}

// rawStringByBytes is the plain reading of a JSON string's raw content.
func rawStringByBytes(b []byte) (content []byte, esc bool, end int, bad bool) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '"':
			return b[1:i], esc, i + 1, false
		case '\\':
			esc = true
			i++
		}
	}
	return nil, esc, len(b), true
}

package sparkevent

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

func TestScannerInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		end  int // s.i after the read
		bad  bool
	}{
		{"123,", 123, 3, false},
		{"-5}", -5, 2, false},
		{"0", 0, 1, false},
		{"123456789012345678]", 123456789012345678, 18, false},
		{"1234567890123456789", 0, 0, true}, // past what fastjson reads as int64 exactly
		{"1.5", 0, 0, true},
		{"1e3", 0, 0, true},
		{"12+", 0, 0, true},
		{"-", 0, 0, true},
		{"--1", 0, 0, true},
		{`"7",`, 0, 3, false}, // another type reads as 0 and is skipped
		{"null}", 0, 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s := scanner{b: []byte(tt.in)}
			got := s.int()
			if s.bad != tt.bad || !tt.bad && (got != tt.want || s.i != tt.end) {
				t.Errorf("got %d end=%d bad=%v, want %d end=%d bad=%v", got, s.i, s.bad, tt.want, tt.end, tt.bad)
			}
		})
	}
}

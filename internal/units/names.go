package units

import (
	"strings"
	"unicode/utf8"
)

// ShortName shortens a stage name to at most n runes the way a person reads
// it: the directories of its call site go first ("collect at
// …/bench_power.py:131" rather than "collect at /tmp/a…nds_power.py:131"),
// then, if it is still too long, its middle.
func ShortName(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if call, site, ok := strings.Cut(s, " at "); ok {
		if i := strings.LastIndexByte(site, '/'); i >= 0 {
			s = call + " at …" + site[i+1:]
		}
	}
	return TruncateMiddle(s, n)
}

// TruncateMiddle shortens s to at most n runes by cutting out its middle,
// keeping the end of names like "filter at BisectingKMeans.scala:180".
func TruncateMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	tail := (n - 1) / 2
	head := n - 1 - tail
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// OneLine folds newlines and tabs (stage names and details from the log
// carry them) into spaces and drops other control characters, so that
// text from the log cannot move the cursor or inject terminal escapes, and
// a stage name reads (and matches across runs) the same however Spark
// wrapped it.
func OneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == ' ':
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

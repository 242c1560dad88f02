package report

import (
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/sparkdx/sparkdx/internal/units"
)

// fmtDuration renders milliseconds the way a person reads them: "850ms",
// "12.3s", "4m05s", "2h14m".
func fmtDuration(ms int64) string { return units.Millis(ms) }

// fmtBytes renders a size in binary units with three significant digits.
func fmtBytes(b int64) string {
	if b < 0 {
		return "-" + fmtBytes(-b)
	}
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	v, exp := float64(b), -1
	for v >= unit && exp < 5 {
		v /= unit
		exp++
	}
	prefix := "KMGTPE"[exp]
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %ciB", v, prefix)
	case v >= 10:
		return fmt.Sprintf("%.1f %ciB", v, prefix)
	}
	return fmt.Sprintf("%.2f %ciB", v, prefix)
}

// fmtBytesOrDash is fmtBytes, or "-" for zero so tables stay quiet.
// fmtDurationOrDash is fmtDuration, with "-" for none.
func fmtDurationOrDash(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return fmtDuration(ms)
}

func fmtBytesOrDash(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmtBytes(b)
}

// fmtPct renders a 0..1 share as a percentage.
func fmtPct(share float64) string {
	if math.IsNaN(share) || math.IsInf(share, 0) {
		return "-"
	}
	p := share * 100
	if p > 0 && p < 0.95 {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// fmtRatio renders a ratio like a skew factor: "3.2×"; "-" when unknown.
func fmtRatio(r float64) string {
	if r <= 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	if r >= 100 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.1f×", r)
}

// fmtTime renders an epoch-millisecond time in UTC.
func fmtTime(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z")
}

// share is a/b, 0 when b is not positive.
func share(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// width is the number of terminal columns s takes (one per rune; the text
// we print has no wide characters of its own).
func width(s string) int { return utf8.RuneCountInString(s) }

// plural renders a count with its noun: "1 core", "16 cores".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// fmtCount renders a count exactly up to 9,999, then with three
// significant digits: "8412", "12.3 K", "4.51 M", "1.20 G".
func fmtCount(n int64) string { return units.Count(n) }

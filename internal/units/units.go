// Package units formats quantities for people: sizes in binary units,
// durations in the largest unit that keeps them short; and stage names
// cut to a column's width (ShortName), for the renderers and serve's
// pages alike.
package units

import (
	"fmt"
	"math"
)

// Bytes renders a size in binary units with one decimal ("1.5 MiB"),
// keeping the sign of a negative size (a shrink between two heap dumps).
func Bytes(n int64) string {
	if n < 0 {
		if n == -n { // math.MinInt64 has no positive counterpart
			return "-8.0 EiB"
		}
		return "-" + Bytes(-n)
	}
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Millis renders a duration in milliseconds the one way sparkdx shows
// durations (findings, tables, evidence): "46ms", "5.4s", "1m04s", "2h05m",
// rounded to the last unit shown.
func Millis(ms int64) string {
	if ms < 0 {
		if ms == -ms {
			ms++ // math.MinInt64 has no positive counterpart
		}
		return "-" + Millis(-ms)
	}
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 59_950: // below what rounds to 60.0s
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	case ms < 3_599_500: // below what rounds to 60m00s
		s := (ms + 500) / 1000
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	m := ms / 60_000
	if ms%60_000 >= 30_000 {
		m++
	}
	return fmt.Sprintf("%dh%02dm", m/60, m%60)
}

// Count renders a count of things (rows, pairs) short: exact below 10 000,
// else with a decimal suffix ("4.00 M", "5.24 G").
func Count(n int64) string {
	if n < 10_000 && n > -10_000 {
		return fmt.Sprintf("%d", n)
	}
	v, suffix := float64(n), ""
	for _, s := range []string{"K", "M", "G", "T", "P"} {
		if math.Abs(v) < 1000 {
			break
		}
		v, suffix = v/1000, s
	}
	switch {
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f %s", v, suffix)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f %s", v, suffix)
	}
	return fmt.Sprintf("%.2f %s", v, suffix)
}

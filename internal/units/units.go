// Package units formats quantities for people: sizes in binary units.
package units

import "fmt"

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

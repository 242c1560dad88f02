package sqlplan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Metric types of Spark's SQLMetric.
const (
	Sum      = "sum"
	Size     = "size"
	Timing   = "timing"
	NsTiming = "nsTiming"
	Average  = "average"
)

// NeedsMax says whether a metric's string names the task with the largest
// value (every type but sum).
func NeedsMax(metricType string) bool { return metricType != Sum }

// MaxTask is where a metric's largest task value was seen.
type MaxTask struct {
	Value                    int64
	StageID, AttemptID, Task int64
}

const suffix = "(min, med, max (stageId: taskId))"

// StringValue is how the SQL tab and the History Server show a metric's
// values over all tasks (SQLMetrics.stringValue): a sum, or the total with
// min, median and max and the task the max came from (max nil: the
// driver's). Numbers are formatted as Java formats them in Locale.US.
func StringValue(metricType string, values []int64, max *MaxTask) string {
	taskInfo := "(driver)"
	if max != nil {
		taskInfo = fmt.Sprintf("(stage %d.%d: task %d)", max.StageID, max.AttemptID, max.Task)
	}
	var format func(int64) string
	switch metricType {
	case Sum:
		var sum int64
		for _, v := range values {
			sum += v
		}
		return groupDigits(sum)
	case Average:
		valid := filter(values, func(v int64) bool { return v > 0 })
		if len(valid) <= 1 {
			return tenths(first(valid))
		}
		slices.Sort(valid)
		return fmt.Sprintf("%s:\n(%s, %s, %s %s)", suffix, tenths(valid[0]), tenths(valid[len(valid)/2]),
			tenths(valid[len(valid)-1]), taskInfo)
	case Size:
		format = BytesString
	case Timing:
		format = MsDurationString
	case NsTiming:
		format = func(ns int64) string { return MsDurationString(ns / 1e6) }
	default:
		// Spark 4 shows a type it does not know this way; 3.5 fails.
		format = func(v int64) string { return "[unknown] " + groupDigits(v) }
	}
	valid := filter(values, func(v int64) bool { return v >= 0 })
	if len(valid) <= 1 {
		return format(first(valid))
	}
	slices.Sort(valid)
	var sum int64
	for _, v := range valid {
		sum += v
	}
	return fmt.Sprintf("total %s\n%s (%s, %s, %s %s)", suffix, format(sum), format(valid[0]),
		format(valid[len(valid)/2]), format(valid[len(valid)-1]), taskInfo)
}

func filter(values []int64, keep func(int64) bool) []int64 {
	var out []int64
	for _, v := range values {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

func first(values []int64) int64 {
	if len(values) == 0 {
		return 0
	}
	return values[0]
}

// groupDigits is NumberFormat.getIntegerInstance(Locale.US) of a long:
// "1,234,567".
func groupDigits(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// tenths is an average metric's value (stored ×10) as
// NumberFormat.getNumberInstance(Locale.US) prints it: "1,234.5", "7".
func tenths(v int64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := groupDigits(v / 10)
	if d := v % 10; d != 0 {
		s += "." + strconv.FormatInt(d, 10)
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s
}

var byteUnits = []struct {
	size   int64
	suffix string
}{{1 << 60, "EiB"}, {1 << 50, "PiB"}, {1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}, {1, "B"}}

// BytesString is Spark's Utils.bytesToString: "1.5 KiB", "0.0 B".
func BytesString(size int64) string {
	i := 0
	for i < len(byteUnits)-1 && size < 2*byteUnits[i].size {
		i++
	}
	return javaFixed(float64(size)/float64(byteUnits[i].size), 1) + " " + byteUnits[i].suffix
}

// MsDurationString is Spark's Utils.msDurationToString: "35 ms", "1.2 s",
// "3.5 m", "1.25 h" (the division done in float, as Spark does).
func MsDurationString(ms int64) string {
	const second, minute, hour = 1000, 60 * 1000, 60 * 60 * 1000
	switch {
	case ms < second:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < minute:
		return javaFixed(float64(float32(ms)/second), 1) + " s"
	case ms < hour:
		return javaFixed(float64(float32(ms)/minute), 1) + " m"
	default:
		return javaFixed(float64(float32(ms)/hour), 2) + " h"
	}
}

// javaFixed is Java's String.format("%.Nf") in Locale.US: the shortest
// decimal that reads back as x, rounded half up to prec digits (Go's
// strconv rounds the exact binary value, which differs on ties like 0.25).
func javaFixed(x float64, prec int) string {
	neg := x < 0
	if neg {
		x = -x
	}
	// d.ddddde±XX: digits and the decimal exponent of the first one.
	e := strconv.FormatFloat(x, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := []byte(strings.Replace(mant, ".", "", 1))
	// Place the digits on a fixed grid: intDigits before the point.
	intDigits := exp + 1
	if intDigits <= 0 {
		digits = append([]byte(strings.Repeat("0", 1-intDigits)), digits...)
		intDigits = 1
	}
	keep := intDigits + prec
	for len(digits) < keep+1 {
		digits = append(digits, '0')
	}
	roundUp := digits[keep] >= '5'
	digits = digits[:keep]
	if roundUp {
		i := keep - 1
		for ; i >= 0; i-- {
			if digits[i] == '9' {
				digits[i] = '0'
				continue
			}
			digits[i]++
			break
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
			intDigits++
		}
	}
	s := string(digits[:intDigits])
	if prec > 0 {
		s += "." + string(digits[intDigits:])
	}
	if neg {
		s = "-" + s
	}
	return s
}

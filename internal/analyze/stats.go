package analyze

import "slices"

// quantiles returns p50/p95/max of xs, sorting xs in place. Quantiles are
// nearest-rank, as Spark's task summaries round them.
func quantiles(xs []int64) Quantiles {
	if len(xs) == 0 {
		return Quantiles{}
	}
	slices.Sort(xs)
	return Quantiles{P50: pick(xs, 0.5), P95: pick(xs, 0.95), Max: xs[len(xs)-1]}
}

// pick is the nearest-rank quantile of sorted values.
func pick(sorted []int64, q float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)))
	return sorted[min(i, len(sorted)-1)]
}

// median sorts xs in place and returns its p50.
func median(xs []int64) int64 {
	slices.Sort(xs)
	return pick(xs, 0.5)
}

// Ratio is a/b, or 0 when b is not positive.
func Ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

package units

import "testing"

// TestShortName: a stage name loses its call site's directories before
// anything else, then its middle.
func TestShortName(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"collect at /tmp/a/benchmarks/bench_power.py:131", 40, "collect at …bench_power.py:131"},
		{"collect at /tmp/a/benchmarks/bench_power.py:131", 100, "collect at /tmp/a/benchmarks/bench_power.py:131"},
		{"sum at workload.py:44", 12, "sum at…py:44"},
		{"$anonfun$withThreadLocalCaptured$1 at CompletableFuture.java:1768", 34, "$anonfun$withThre…Future.java:1768"},
		{"reduceByKey at /work/main/testdata/scenarios/shuffle-files-lost/workload.py:21", 34, "reduceByKey at …workload.py:21"},
	} {
		if got := ShortName(c.in, c.n); got != c.want {
			t.Errorf("ShortName(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestTruncateMiddle(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"filter at BisectingKMeans.scala:180", 20, "filter at …scala:180"},
		{"abc", 3, "abc"},
		{"abcdef", 1, "…"},
	} {
		if got := TruncateMiddle(c.in, c.n); got != c.want {
			t.Errorf("TruncateMiddle(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"a\n\tb  \x1b[1mc\r\n":         "a b [1mc",
		"collect at\n  job.py:3":       "collect at job.py:3",
		"\u0085next line\u009b31m red": "next line31m red",
		"":                             "",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

package hstest

import (
	"regexp"
	"strconv"
	"strings"
)

// known is a difference between sparkdx and a History Server that is not a
// bug, with its reason (docs/historyserver-differences.md lists them).
type known struct {
	line   string         // Spark version prefix the difference is seen with; "" for all
	path   *regexp.Regexp // the REST path
	diff   *regexp.Regexp // the difference line
	reason string
}

var knownDifferences = []known{
	{"3.5", regexp.MustCompile(`/sql(/\d+)?(\?|$)`), regexp.MustCompile(`\.(queryId|errorMessage|rootExecutionId|modifiedConfigs|desc): got .*, want absent$`),
		"ExecutionData gained queryId, errorMessage, rootExecutionId, modifiedConfigs and the nodes' desc in Spark 4; sparkdx follows Spark 4.3"},
	{"3.5", regexp.MustCompile(`/sql(/\d+)?(\?|$)`), regexp.MustCompile(`^\$(\[\d+\])?\.(nodes|edges)`),
		"Spark 3.5 draws the ResultQueryStage of Spark 4 logs as a node of its own (and a reused subquery's edge twice); sparkdx draws plans as Spark 4.3 does, which the 4.3 History Server checks on every log"},
	{"3.5", regexp.MustCompile(`/sql(\?|$)`), regexp.MustCompile(`^\$: got \d+ elements, want 20$`),
		"Spark 3.5 lists 20 queries unless asked for more (length=20); Spark 4 lists them all"},
	{"3.5", anyPath, regexp.MustCompile(`\.(ConcurrentGCCount|ConcurrentGCTime): got .*, want absent$`),
		"executor metrics ConcurrentGCCount/ConcurrentGCTime were added in Spark 4.0; sparkdx follows Spark 4"},
	{"3.5", anyPath, regexp.MustCompile(`\.(logSourceName|logSourceFullPath|exitCode): got .*, want absent$`),
		"attempt fields added to the History Server's answer in Spark 4 (exitCode in 4.3)"},
	{"3.5", regexp.MustCompile(`/environment$`), regexp.MustCompile(`Properties\[\d+\]\[1\]: got \*{9}\(redacted\), want `),
		"Spark 4's default spark.redaction.regex adds \"credential\"; sparkdx redacts with Spark 4's default"},
	{"3.5", anyPath, regexp.MustCompile(`(shufflePushReadMetrics(Dist)?\.\w+|shuffleCorruptMergedBlockChunks|shuffleMerged\w+)(\[\d+\])?: got [0-9.]+, want 0(\.0)?$`),
		"Spark 3.5 reads the push-based shuffle read metrics of logs written by Spark 3.2+ as 0; Spark 4 and the goldens read them"},
	{"3.5", regexp.MustCompile(`/(stages|allexecutors|executors)`), regexp.MustCompile(`\.(executorSummary\.\w+\.taskTime|totalDuration|executorMetricsDistributions\.taskTime\[\d+\]): got [0-9.]+, want [0-9.]+$`),
		"Spark 3.5 adds a Resubmitted task end's duration again to its stage's executor summary and (before the executor's removal) to the executor; Spark 4 adds it to neither, and sparkdx follows Spark 4"},
	{"3.5", regexp.MustCompile(`/(taskSummary|stages\?withSummaries=true)`), regexp.MustCompile(`\.(readBytes|totalBlocksFetched)\[\d+\]: got [0-9.]+, want -[0-9.]+$`),
		"Spark 3.5 values the shuffle read totals of an unsuccessful task by its stored fields (-v-1 each); Spark 4 by the true sum"},
}

var anyPath = regexp.MustCompile(``)

// clockSkew is the most two servers' "now" may differ by while both
// answer the same question about a running application.
const clockSkew = 30_000

var totalDuration = regexp.MustCompile(`\.(?:totalDuration|duration): got (\d+), want (\d+)$`)

// KnownDifference returns why diff (a line of Diff) between sparkdx and
// the History Server of Spark version for path is not a bug, or "" when it
// is one.
func KnownDifference(version, path, diff string) string {
	// An executor still alive in an unfinished log runs to "now", and the
	// two servers answer at different instants.
	if m := totalDuration.FindStringSubmatch(diff); m != nil {
		got, _ := strconv.ParseInt(m[1], 10, 64)
		want, _ := strconv.ParseInt(m[2], 10, 64)
		if d := got - want; d > -clockSkew && d < clockSkew {
			return "an alive executor's totalDuration, a running query's duration, runs to each server's own now"
		}
	}
	for _, k := range knownDifferences {
		if strings.HasPrefix(version, k.line) && k.path.MatchString(path) && k.diff.MatchString(diff) {
			return k.reason
		}
	}
	return ""
}

// AddedSinceGoldens reports a difference that is a field Spark's History
// Server added after the goldens' snapshot (Spark 4.3's gives an attempt's
// exitCode; the goldens, from master of 2026-05, do not):
// TestHistoryServerDifferential checks those fields against the real one.
func AddedSinceGoldens(diff string) bool {
	return strings.Contains(diff, ".exitCode: got ") && strings.HasSuffix(diff, ", want absent")
}

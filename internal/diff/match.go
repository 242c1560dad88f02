package diff

import (
	"regexp"
	"strings"
)

// How a stage of one run was matched to a stage of the other. Stage ids
// are no use across runs (a changed plan renumbers every later stage), so
// stages are matched on what the code says, in the order the runs ran
// them:
//  1. the same stage name (Spark's call site, "count at Query.scala:42"),
//     as a longest common subsequence of the two runs' stages in
//     submission order, so repeated names pair up in order;
//  2. between two stages matched so, the same call site without its line
//     numbers ("count at Query.scala"), for code that moved;
//  3. between two matched stages, the same operation ("count") in the
//     same order, for code that moved to another file.
//
// What is left was added or removed.
const (
	MatchName        = "name"
	MatchNameNoLines = "name-without-line-numbers"
	MatchOperation   = "operation-in-order"
	MatchNone        = ""
)

// MatchDescription tells a reader how stages were matched.
const MatchDescription = "stages are matched by name (Spark's call site) in submission order " +
	"(longest common subsequence); then, between matched stages, by call site without line numbers, " +
	"then by operation in order; the rest were added or removed. Attempts of one stage are summed."

var lineNumbers = regexp.MustCompile(`:\d+`)

// keyNoLines is a stage name without line numbers.
func keyNoLines(name string) string { return lineNumbers.ReplaceAllString(name, "") }

// keyOperation is the operation of a call-site name ("count" of "count
// at Foo.scala:3"), or the whole name when it has no call site.
func keyOperation(name string) string {
	if i := strings.Index(name, " at "); i > 0 {
		return name[:i]
	}
	return name
}

// Pair is one row of the alignment: a stage of both runs (matched), or of
// one (added or removed).
type Pair struct {
	Before, After int    // indexes into the runs' stages, -1 when absent
	How           string // how the pair was matched; MatchNone when added or removed
}

// Stages aligns two runs' stage names (each run's stages in submission
// order) and returns the rows in a merged order: matched pairs in order,
// each removed or added stage where it ran.
func Stages(b, a []string) []Pair {
	bi := make([]int, len(b))
	for i := range bi {
		bi[i] = i
	}
	ai := make([]int, len(a))
	for i := range ai {
		ai[i] = i
	}
	pairs := align(bi, ai, func(i int) string { return b[i] }, func(j int) string { return a[j] }, MatchName)
	for _, level := range []struct {
		how string
		key func(string) string
	}{{MatchNameNoLines, keyNoLines}, {MatchOperation, keyOperation}} {
		pairs = realignGaps(pairs, func(ib, ia []int) []Pair {
			return align(ib, ia, func(i int) string { return level.key(b[i]) },
				func(j int) string { return level.key(a[j]) }, level.how)
		})
	}
	return pairs
}

// realignGaps runs match over each run of unmatched rows between two
// matched ones, replacing the run with what match returns.
func realignGaps(rows []Pair, match func(b, a []int) []Pair) []Pair {
	var out []Pair
	var gb, ga []int
	flush := func() {
		if len(gb) > 0 && len(ga) > 0 {
			out = append(out, match(gb, ga)...)
		} else {
			for _, i := range gb {
				out = append(out, Pair{Before: i, After: -1})
			}
			for _, j := range ga {
				out = append(out, Pair{Before: -1, After: j})
			}
		}
		gb, ga = nil, nil
	}
	for _, p := range rows {
		switch {
		case p.Before >= 0 && p.After >= 0:
			flush()
			out = append(out, p)
		case p.Before >= 0:
			gb = append(gb, p.Before)
		default:
			ga = append(ga, p.After)
		}
	}
	flush()
	return out
}

// maxLCSCells bounds the LCS table; larger inputs pair the k-th
// occurrence of each key instead, which keeps order within a key.
const maxLCSCells = 16 << 20

// align matches the stages b and a (indexes, each in order) whose keys are
// equal, keeping order, and returns matched and unmatched rows merged in
// order.
func align(b, a []int, kb, ka func(int) string, how string) []Pair {
	if len(b)*len(a) > maxLCSCells {
		return alignByOccurrence(b, a, kb, ka, how)
	}
	n, m := len(b), len(a)
	keysB := make([]string, n)
	for i, x := range b {
		keysB[i] = kb(x)
	}
	keysA := make([]string, m)
	for j, x := range a {
		keysA[j] = ka(x)
	}
	// lcs[i][j] is the LCS length of keysB[i:] and keysA[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if keysB[i] == keysA[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []Pair
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case keysB[i] == keysA[j]:
			out = append(out, Pair{Before: b[i], After: a[j], How: how})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, Pair{Before: b[i], After: -1})
			i++
		default:
			out = append(out, Pair{Before: -1, After: a[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, Pair{Before: b[i], After: -1})
	}
	for ; j < m; j++ {
		out = append(out, Pair{Before: -1, After: a[j]})
	}
	return out
}

// alignByOccurrence pairs the k-th stage with a key in b with the k-th
// with that key in a; rows follow a's order with b's leftovers last.
func alignByOccurrence(b, a []int, kb, ka func(int) string, how string) []Pair {
	queue := map[string][]int{}
	for _, x := range b {
		queue[kb(x)] = append(queue[kb(x)], x)
	}
	used := map[int]bool{}
	var out []Pair
	for _, y := range a {
		k := ka(y)
		if q := queue[k]; len(q) > 0 {
			out = append(out, Pair{Before: q[0], After: y, How: how})
			used[q[0]] = true
			queue[k] = q[1:]
			continue
		}
		out = append(out, Pair{Before: -1, After: y})
	}
	for _, x := range b {
		if !used[x] {
			out = append(out, Pair{Before: x, After: -1})
		}
	}
	return out
}

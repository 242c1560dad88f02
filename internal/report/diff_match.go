package report

import (
	"regexp"
	"sort"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
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

// diffStage is one stage (all its attempts) of one run.
type diffStage struct {
	StageIDs []int // one id; a list so JSON reads the same for both runs
	Name     string
	first    int64 // first submission
	sums     StageSide
}

// stagesOf folds a run's stage attempts into stages in submission order;
// stages Spark never submitted (skipped: their output was reused) are left
// out.
func stagesOf(r *analyze.Result) []diffStage {
	byID := map[int]int{}
	var out []diffStage
	for _, s := range r.Stages {
		if s.SubmissionTime <= 0 {
			continue
		}
		i, ok := byID[s.StageID]
		if !ok {
			i = len(out)
			byID[s.StageID] = i
			out = append(out, diffStage{StageIDs: []int{s.StageID}, Name: oneLine(s.Name), first: s.SubmissionTime})
		}
		d := &out[i]
		d.first = min(d.first, s.SubmissionTime)
		d.sums.add(s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].first != out[j].first {
			return out[i].first < out[j].first
		}
		return out[i].StageIDs[0] < out[j].StageIDs[0]
	})
	return out
}

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

// stagePair is one row of the alignment: a stage of both runs (matched),
// or of one (added or removed).
type stagePair struct {
	before, after int // indexes, -1 when absent
	how           string
}

// matchStages aligns two runs' stages (each in submission order) and
// returns the rows in a merged order: matched pairs in order, each
// removed/added stage where it ran.
func matchStages(b, a []diffStage) []stagePair {
	bi := make([]int, len(b))
	for i := range bi {
		bi[i] = i
	}
	ai := make([]int, len(a))
	for i := range ai {
		ai[i] = i
	}
	pairs := align(bi, ai, func(i int) string { return b[i].Name }, func(j int) string { return a[j].Name }, MatchName)
	for _, level := range []struct {
		how string
		key func(string) string
	}{{MatchNameNoLines, keyNoLines}, {MatchOperation, keyOperation}} {
		pairs = realignGaps(pairs, func(ib, ia []int) []stagePair {
			return align(ib, ia, func(i int) string { return level.key(b[i].Name) },
				func(j int) string { return level.key(a[j].Name) }, level.how)
		})
	}
	return pairs
}

// realignGaps runs match over each run of unmatched rows between two
// matched ones, replacing the run with what match returns.
func realignGaps(rows []stagePair, match func(b, a []int) []stagePair) []stagePair {
	var out []stagePair
	var gb, ga []int
	flush := func() {
		if len(gb) > 0 && len(ga) > 0 {
			out = append(out, match(gb, ga)...)
		} else {
			for _, i := range gb {
				out = append(out, stagePair{before: i, after: -1})
			}
			for _, j := range ga {
				out = append(out, stagePair{before: -1, after: j})
			}
		}
		gb, ga = nil, nil
	}
	for _, p := range rows {
		switch {
		case p.before >= 0 && p.after >= 0:
			flush()
			out = append(out, p)
		case p.before >= 0:
			gb = append(gb, p.before)
		default:
			ga = append(ga, p.after)
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
func align(b, a []int, kb, ka func(int) string, how string) []stagePair {
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
	var out []stagePair
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case keysB[i] == keysA[j]:
			out = append(out, stagePair{before: b[i], after: a[j], how: how})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, stagePair{before: b[i], after: -1})
			i++
		default:
			out = append(out, stagePair{before: -1, after: a[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, stagePair{before: b[i], after: -1})
	}
	for ; j < m; j++ {
		out = append(out, stagePair{before: -1, after: a[j]})
	}
	return out
}

// alignByOccurrence pairs the k-th stage with a key in b with the k-th
// with that key in a; rows follow a's order with b's leftovers last.
func alignByOccurrence(b, a []int, kb, ka func(int) string, how string) []stagePair {
	queue := map[string][]int{}
	for _, x := range b {
		queue[kb(x)] = append(queue[kb(x)], x)
	}
	used := map[int]bool{}
	var out []stagePair
	for _, y := range a {
		k := ka(y)
		if q := queue[k]; len(q) > 0 {
			out = append(out, stagePair{before: q[0], after: y, how: how})
			used[q[0]] = true
			queue[k] = q[1:]
			continue
		}
		out = append(out, stagePair{before: -1, after: y})
	}
	for _, x := range b {
		if !used[x] {
			out = append(out, stagePair{before: x, after: -1})
		}
	}
	return out
}

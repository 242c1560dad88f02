// Package hstest compares History Server REST answers with the golden
// answers of Apache Spark's HistoryServerSuite, for the tests of every
// package that serves them.
package hstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// Case is one HistoryServerSuite case: its name, its REST URL below
// /api/v1/ and the file of its golden answer.
type Case struct{ Name, URL, File string }

// Cases reads the (name, URL) list of HistoryServerSuite in the shared
// test data: the authoritative map from each golden file to its REST URL.
func Cases(t testing.TB) []Case {
	t.Helper()
	src, err := os.ReadFile(sparktest.Path(t, "HistoryServerSuite.scala.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	start := strings.Index(s, "val cases = Seq(")
	if start < 0 {
		t.Fatal("cases list not found in HistoryServerSuite.scala.txt")
	}
	end := strings.Index(s[start:], "\n  )\n")
	if end < 0 {
		t.Fatal("cases list not found in HistoryServerSuite.scala.txt")
	}
	re := regexp.MustCompile(`"([^"]+)"\s*->\s*"([^"]+)"`)
	nonWord := regexp.MustCompile(`\W`)
	var out []Case
	for _, m := range re.FindAllStringSubmatch(s[start:start+end], -1) {
		out = append(out, Case{Name: m[1], URL: m[2], File: nonWord.ReplaceAllString(m[1], "_") + "_expectation.json"})
	}
	return out
}

// Decode decodes a JSON document keeping numbers as written.
func Decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// Normalise applies the suite's clearDynamicFields to a decoded answer, in
// place.
func Normalise(v any) { clearDynamic(v, true) }

// clearDynamic clears lastUpdated and lastUpdatedEpoch, and the log source
// when source: two servers over one directory give the same one.
func clearDynamic(v any, source bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch {
			case k == "lastUpdatedEpoch":
				x[k] = json.Number("0")
			case k == "lastUpdated", source && (k == "logSourceName" || k == "logSourceFullPath"):
				x[k] = ""
			default:
				clearDynamic(e, source)
			}
		}
	case []any:
		for _, e := range x {
			clearDynamic(e, source)
		}
	}
}

// Diff compares two decoded documents as json4s does: object key order is
// irrelevant, array order matters, and integers differ from doubles. Each
// difference is a line "$.path: got ..., want ..."; a key only in got ends
// in "want absent".
func Diff(got, want any) []string {
	var diffs []string
	var cmp func(path string, g, w any)
	cmp = func(path string, g, w any) {
		switch wv := w.(type) {
		case map[string]any:
			gv, ok := g.(map[string]any)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want object", path, short(g)))
				return
			}
			keys := map[string]bool{}
			for k := range wv {
				keys[k] = true
			}
			for k := range gv {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
				ge, gok := gv[k]
				we, wok := wv[k]
				switch {
				case !gok:
					diffs = append(diffs, fmt.Sprintf("%s.%s: missing, want %v", path, k, short(we)))
				case !wok:
					diffs = append(diffs, fmt.Sprintf("%s.%s: got %v, want absent", path, k, short(ge)))
				default:
					cmp(path+"."+k, ge, we)
				}
			}
		case []any:
			gv, ok := g.([]any)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want array", path, short(g)))
				return
			}
			if len(gv) != len(wv) {
				diffs = append(diffs, fmt.Sprintf("%s: got %d elements, want %d", path, len(gv), len(wv)))
			}
			for i := 0; i < len(gv) && i < len(wv); i++ {
				cmp(fmt.Sprintf("%s[%d]", path, i), gv[i], wv[i])
			}
		case json.Number:
			gv, ok := g.(json.Number)
			if !ok || isDouble(gv) != isDouble(wv) || !sameNumber(gv, wv) {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", path, short(g), wv))
			}
		default:
			if fmt.Sprint(g) != fmt.Sprint(w) {
				diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", path, short(g), short(w)))
			}
		}
	}
	cmp("$", got, want)
	return diffs
}

func isDouble(n json.Number) bool { return strings.ContainsAny(string(n), ".eE") }

func sameNumber(a, b json.Number) bool {
	if !isDouble(a) {
		return string(a) == string(b)
	}
	x, err1 := a.Float64()
	y, err2 := b.Float64()
	return err1 == nil && err2 == nil && x == y
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

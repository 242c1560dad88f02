package diff

import (
	"strings"
	"testing"
)

// pairsString renders an alignment as "b>a:how" items, "-" for absent.
func pairsString(ps []Pair) string {
	var parts []string
	for _, p := range ps {
		b, a := "-", "-"
		if p.Before >= 0 {
			b = string(rune('0' + p.Before))
		}
		if p.After >= 0 {
			a = string(rune('0' + p.After))
		}
		s := b + ">" + a
		if p.How != "" {
			s += ":" + p.How
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestMatchStages(t *testing.T) {
	tests := []struct {
		name          string
		before, after []string
		want          string
	}{
		{"same", []string{"map at A.scala:1", "count at A.scala:2"}, []string{"map at A.scala:1", "count at A.scala:2"},
			"0>0:name 1>1:name"},
		{"repeated names pair in order", []string{"q at A:1", "q at A:1", "q at A:1"}, []string{"q at A:1", "q at A:1"},
			"0>0:name 1>1:name 2>-"},
		{"a stage added in the middle", []string{"a at A:1", "c at A:3"}, []string{"a at A:1", "b at A:2", "c at A:3"},
			"0>0:name ->1 1>2:name"},
		{"a stage removed (the semi join needs no shuffle)", []string{"scan at Q:1", "exchange at Q:2", "join at Q:3"},
			[]string{"scan at Q:1", "join at Q:3"}, "0>0:name 1>- 2>1:name"},
		{"code moved down a few lines", []string{"scan at Q:1", "count at Q.scala:40", "save at Q:9"},
			[]string{"scan at Q:1", "count at Q.scala:44", "save at Q:9"}, "0>0:name 1>1:name-without-line-numbers 2>2:name"},
		{"code moved to another file", []string{"scan at Q:1", "count at Q.scala:40", "save at Q:9"},
			[]string{"scan at Q:1", "count at R.scala:7", "save at Q:9"}, "0>0:name 1>1:operation-in-order 2>2:name"},
		{"different operation is not matched", []string{"scan at Q:1", "count at Q:40"},
			[]string{"scan at Q:1", "collect at Q:40"}, "0>0:name 1>- ->1"},
		{"order is kept", []string{"a at X:1", "b at X:2"}, []string{"b at X:2", "a at X:1"}, "0>- 1>0:name ->1"},
		{"nothing in common", []string{"a at X:1"}, []string{"b at Y:1"}, "0>- ->0"},
		{"empty before", nil, []string{"a at X:1"}, "->0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pairsString(Stages(tt.before, tt.after))
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAlignByOccurrenceKeepsKeyOrder checks the fallback for huge apps.
func TestAlignByOccurrenceKeepsKeyOrder(t *testing.T) {
	b := []string{"q", "r", "q"}
	a := []string{"q", "q", "s"}
	key := func(s []string) func(int) string { return func(i int) string { return s[i] } }
	got := pairsString(alignByOccurrence([]int{0, 1, 2}, []int{0, 1, 2}, key(b), key(a), MatchName))
	if want := "0>0:name 2>1:name ->2 1>-"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

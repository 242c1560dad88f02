package hstest

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
		diffs           []string // substrings, one per difference, in order
	}{
		{"equal, keys reordered", `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, nil},
		{"integer vs double", `{"a":1}`, `{"a":1.0}`, []string{"$.a: got 1, want 1.0"}},
		{"doubles compared by value", `{"a":1.50}`, `{"a":1.5}`, nil},
		{"missing key", `{}`, `{"a":"x"}`, []string{"$.a: missing, want x"}},
		{"extra key", `{"a":"x"}`, `{}`, []string{"$.a: got x, want absent"}},
		{"array order", `[1,2]`, `[2,1]`, []string{"$[0]: got 1, want 2", "$[1]: got 2, want 1"}},
		{"array length", `[1]`, `[1,2]`, []string{"$: got 1 elements, want 2"}},
		{"type", `{"a":[1]}`, `{"a":{}}`, []string{"$.a: got [1], want object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Decode([]byte(tc.got))
			if err != nil {
				t.Fatal(err)
			}
			w, err := Decode([]byte(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			diffs := Diff(g, w)
			if len(diffs) != len(tc.diffs) {
				t.Fatalf("got %d differences %q, want %d %q", len(diffs), diffs, len(tc.diffs), tc.diffs)
			}
			for i, d := range diffs {
				if !strings.Contains(d, tc.diffs[i]) {
					t.Errorf("difference %d: got %q, want %q", i, d, tc.diffs[i])
				}
			}
		})
	}
}

func TestNormalise(t *testing.T) {
	v, err := Decode([]byte(`[{"lastUpdatedEpoch":17,"attempts":[{"lastUpdated":"t","logSourceName":"n","x":3}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	Normalise(v)
	w, _ := Decode([]byte(`[{"lastUpdatedEpoch":0,"attempts":[{"lastUpdated":"","logSourceName":"","x":3}]}]`))
	if d := Diff(v, w); len(d) > 0 {
		t.Errorf("got differences after Normalise: %q", d)
	}
}

func TestKeyOrder(t *testing.T) {
	for _, c := range []struct {
		name, got, want string
		diffs           int
	}{
		{"same order", `{"a":1,"b":{"c":1,"d":2}}`, `{"a":1,"b":{"c":1,"d":2}}`, 0},
		{"swapped at the top", `{"b":1,"a":2}`, `{"a":2,"b":1}`, 1},
		{"swapped in an array's object", `[{"a":1,"b":2},{"b":1,"a":2}]`, `[{"a":1,"b":2},{"a":2,"b":1}]`, 1},
		{"keys only one side has do not count", `{"a":1,"x":0,"b":2}`, `{"y":0,"a":1,"b":2}`, 0},
	} {
		got, err := KeyOrder([]byte(c.got), []byte(c.want))
		if err != nil || len(got) != c.diffs {
			t.Errorf("%s: got %v (%v), want %d differences", c.name, got, err, c.diffs)
		}
	}
}

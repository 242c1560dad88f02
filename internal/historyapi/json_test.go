package historyapi

import (
	"math"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {4, "4.0"}, {0.01, "0.01"}, {0.001, "0.001"}, {0.0001, "1.0E-4"},
		{1234567, "1234567.0"}, {1e7, "1.0E7"}, {1.12849e8, "1.12849E8"}, {-2.5, "-2.5"},
		{4016617, "4016617.0"}, {1.324251e9, "1.324251E9"}, {math.NaN(), "NaN"},
	}
	for _, c := range cases {
		if got := JavaDouble(c.in); got != c.want {
			t.Errorf("JavaDouble(%v): got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMarshalLayout(t *testing.T) {
	v := obj().Set("a", 1).Set("b", []any{1.0, 2.5}).Set("c", obj()).Set("d", []any{}).
		Set("e", []any{obj().Set("x", "q\"\n<")}).Set("f", int64(-3)).Set("g", true)
	want := `{
  "a" : 1,
  "b" : [ 1.0, 2.5 ],
  "c" : { },
  "d" : [ ],
  "e" : [ {
    "x" : "q\"\n<"
  } ],
  "f" : -3,
  "g" : true
}
`
	if got := string(Marshal(v)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDate(t *testing.T) {
	if got, want := date(1422981779720), "2015-02-03T16:42:59.720GMT"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := date(-1), "1969-12-31T23:59:59.999GMT"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

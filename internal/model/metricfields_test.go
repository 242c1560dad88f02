package model

import (
	"reflect"
	"testing"
)

// TestTaskMetricFieldsCoverTaskMetrics: the table names every field of
// TaskMetrics exactly once (a new field must be added to it), with a
// distinct event-log key in its group, and Add adds each of them.
func TestTaskMetricFieldsCoverTaskMetrics(t *testing.T) {
	var m TaskMetrics
	var count func(v reflect.Value) int
	count = func(v reflect.Value) int {
		if v.Kind() == reflect.Int64 {
			return 1
		}
		n := 0
		for i := range v.NumField() {
			n += count(v.Field(i))
		}
		return n
	}
	want := count(reflect.ValueOf(m))
	g := TaskMetricFields()
	seen := map[*int64]string{}
	g.Each(func(f *MetricField) {
		p := f.Of(&m)
		if other, ok := seen[p]; ok {
			t.Errorf("%q and %q are the same field", f.Log, other)
		}
		seen[p] = f.Log
	})
	if len(seen) != want {
		t.Errorf("the table has %d fields, TaskMetrics %d", len(seen), want)
	}
	var groups func(g *MetricGroup)
	groups = func(g *MetricGroup) {
		keys := map[string]bool{}
		for _, f := range g.Fields {
			if keys[f.Log] {
				t.Errorf("group %q: key %q twice", g.Log, f.Log)
			}
			keys[f.Log] = true
			hint := 3
			if got := g.Field([]byte(f.Log), &hint); got == nil || got.Log != f.Log {
				t.Errorf("group %q: Field(%q) = %v", g.Log, f.Log, got)
			}
		}
		for _, sub := range g.Groups {
			if g.Group([]byte(sub.Log)) != sub {
				t.Errorf("group %q: Group(%q) not found", g.Log, sub.Log)
			}
			groups(sub)
		}
	}
	groups(g)
	if g.Field([]byte("Updated Blocks"), new(int)) != nil || g.Group([]byte("Executor Run Time")) != nil {
		t.Error("a key that is not in the table was found")
	}

	// Add: each field on its own, added and taken away.
	g.Each(func(f *MetricField) {
		var one, sum TaskMetrics
		*f.Of(&one) = 7
		sum.Add(&one, 1)
		sum.Add(&one, 1)
		if *f.Of(&sum) != 14 || count2(sum) != 14 {
			t.Errorf("Add: %q got %d (total %d), want 14", f.Log, *f.Of(&sum), count2(sum))
		}
		sum.Add(&one, -1)
		if *f.Of(&sum) != 7 {
			t.Errorf("Add -1: %q got %d, want 7", f.Log, *f.Of(&sum))
		}
	})
}

// count2 sums every field of m.
func count2(m TaskMetrics) int64 {
	var n int64
	TaskMetricFields().Each(func(f *MetricField) { n += *f.Of(&m) })
	return n
}

package model

import (
	"reflect"
	"testing"
)

// TestTaskPackEveryField packs tasks with every field set (and unset):
// each unpacks equal, whatever the order of ids and times.
func TestTaskPackEveryField(t *testing.T) {
	full := &Task{TaskID: 42, Index: 7, Attempt: 1, PartitionID: 7, LaunchTime: 1_700_000_000_000,
		GettingResultTime: 1_700_000_000_500, FinishTime: 1_700_000_000_900, ExecutorID: "3", Host: "h1",
		Locality: "NODE_LOCAL", Speculative: true, Failed: true,
		EndReason: "FetchFailed", Extra: &TaskExtra{
			Accumulables: []Accumulable{{ID: 9, Name: "acc", Update: "1", HasUpdate: true, Value: "5"}, {ID: -2, Name: "x", Internal: true, SQL: true}},
			ErrorMessage: "boom\n\tat x", HasErrorMessage: true,
			Loss:        &ExecutorLoss{ExecutorID: "3", CausedByApp: true, Reason: "gone", HasReason: true},
			Fetch:       &FetchFailure{HasAddress: true, ExecutorID: "4", Host: "h2", Port: 7337, ShuffleID: 1, MapIndex: -1, HasMapIndex: true, MapID: 12, ReduceID: 3, Message: "m"},
			ExecMetrics: &ExecutorMetrics{Set: true}}}
	var m TaskMetrics
	for i, p := range m.fields() {
		*p = int64(i+1) * -1000003
	}
	full.SetMetrics(&m)
	for i := range full.Extra.ExecMetrics.Values {
		full.Extra.ExecMetrics.Values[i] = int64(i) << 40
	}
	tasks := []*Task{full, {TaskID: 3, LaunchTime: 5, Killed: true}, {TaskID: 1 << 40, LaunchTime: -1, Extra: &TaskExtra{ExecMetrics: &ExecutorMetrics{}}}, {}}
	var p TaskPack
	for _, tk := range tasks {
		p.Add(tk)
	}
	got, err := p.Unpack()
	if err != nil {
		t.Fatal(err)
	}
	for i := range tasks {
		if !reflect.DeepEqual(got[i], tasks[i]) {
			t.Errorf("task %d:\n got %+v\nwant %+v", i, got[i], tasks[i])
		}
	}
	c := p.Clone()
	c.Add(full)
	if p.Len() != len(tasks) || c.Len() != len(tasks)+1 {
		t.Errorf("got Len %d and clone's %d, want %d and %d", p.Len(), c.Len(), len(tasks), len(tasks)+1)
	}
	if again, _ := p.Unpack(); !reflect.DeepEqual(again, got) {
		t.Error("adding to a clone changed the pack")
	}
}

// TestTaskMetricFieldsAll: fields names every int64 of TaskMetrics once.
func TestTaskMetricFieldsAll(t *testing.T) {
	var m TaskMetrics
	n := 0
	var count func(v reflect.Value)
	count = func(v reflect.Value) {
		for i := range v.NumField() {
			if v.Field(i).Kind() == reflect.Struct {
				count(v.Field(i))
			} else {
				n++
			}
		}
	}
	count(reflect.ValueOf(m))
	seen := map[*int64]bool{}
	for _, p := range m.fields() {
		seen[p] = true
	}
	if n != numTaskMetrics || len(seen) != n {
		t.Errorf("TaskMetrics has %d fields, fields gives %d distinct of %d", n, len(seen), numTaskMetrics)
	}
}

// TestTaskPackBadData: a damaged pack unpacks to an error, not a panic.
func TestTaskPackBadData(t *testing.T) {
	var p TaskPack
	p.Add(&Task{TaskID: 1, ExecutorID: "1", HasMetrics: true})
	for cut := range len(p.data) {
		q := p
		q.data = p.data[:cut]
		if _, err := q.Unpack(); err == nil {
			t.Errorf("cut at %d of %d: no error", cut, len(p.data))
		}
	}
	q := p
	q.strs = nil
	if _, err := q.Unpack(); err == nil {
		t.Error("missing string table: no error")
	}
}

func TestIndexSet(t *testing.T) {
	var s IndexSet
	for _, i := range []int64{0, 1, 1, 4095, 4096, -1, -4096, -4097, 5 << 32, 5<<32 | 1, 0} {
		s.Add(i)
	}
	if got, want := s.Len(), 9; got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

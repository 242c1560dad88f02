package ingest

import (
	"fmt"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

func TestUnpackedSetKeepsTheLatest(t *testing.T) {
	set := unpackedSet{max: 2}
	es := make([]*logEntry, 4)
	unpack := func(e *logEntry) {
		e.unpacked = unpackedModel{a: model.NewAttempt()}
		set.add(e)
	}
	kept := func() string {
		s := ""
		for _, e := range es {
			if e.unpacked.a != nil {
				s += e.key
			}
		}
		return s
	}
	for i := range es {
		es[i] = &logEntry{key: fmt.Sprint(i)}
	}
	for _, c := range []struct {
		name string
		do   func()
		want string
	}{
		{"first two", func() { unpack(es[0]); unpack(es[1]) }, "01"},
		{"third drops the oldest", func() { unpack(es[2]) }, "12"},
		{"again is the latest", func() { unpack(es[1]); unpack(es[3]) }, "13"},
		{"one being read is passed over", func() {
			es[1].mu.RLock()
			unpack(es[0])
			es[1].mu.RUnlock()
		}, "01"},
		{"then dropped", func() { unpack(es[2]) }, "02"},
		{"over max while the others are read", func() {
			es[0].mu.RLock()
			es[2].mu.RLock()
			unpack(es[3])
			es[0].mu.RUnlock()
			es[2].mu.RUnlock()
		}, "023"},
		{"back to max", func() { unpack(es[1]) }, "13"},
	} {
		c.do()
		if got := kept(); got != c.want {
			t.Errorf("%s: got unpacked %q, want %q", c.name, got, c.want)
		}
	}
}

package sparkevent

import (
	"strings"
	"testing"
)

// accumLines are task ends whose accumulables are Spark 3's internal
// metric elements (the template internalAccum skips) and near misses of
// it, each of which the general reading must decode instead.
var accumLines = []struct {
	name, elem string
	kept       int // accumulables the decoder keeps
	sql        int // SQL metric updates it reads
}{
	{"internal", `{"ID":1,"Name":"internal.metrics.executorRunTime","Update":1838,"Value":1838,"Internal":true,"Count Failed Values":true}`, 0, 0},
	{"negative values", `{"ID":2,"Name":"internal.metrics.x","Update":-5,"Value":-7,"Internal":true,"Count Failed Values":true}`, 0, 0},
	{"not internal", `{"ID":3,"Name":"internal.metrics.x","Update":1,"Value":1,"Internal":false,"Count Failed Values":true}`, 1, 0},
	{"sql metadata", `{"ID":4,"Name":"number of output rows","Update":"9","Value":"9","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, 0, 1},
	{"string update", `{"ID":5,"Name":"internal.metrics.x","Update":"1","Value":1,"Internal":true,"Count Failed Values":true}`, 0, 0},
	{"escaped name", `{"ID":6,"Name":"a\"b","Update":1,"Value":1,"Internal":true,"Count Failed Values":true}`, 0, 0},
	{"fraction", `{"ID":7,"Name":"x","Update":1.5,"Value":1,"Internal":false,"Count Failed Values":true}`, 1, 0},
	{"space", `{"ID":8, "Name":"x","Update":1,"Value":1,"Internal":true,"Count Failed Values":true}`, 0, 0},
	{"string id", `{"ID":"9","Name":"x","Update":1,"Value":1,"Internal":true,"Count Failed Values":true}`, 0, 0},
	{"nested id", `{"ID":{"a":[1]},"Name":"x","Update":1,"Value":1,"Internal":false,"Count Failed Values":true}`, 1, 0},
	{"sql string", `{"ID":11,"Name":"output rows","Update":"365","Value":"365","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, 0, 1},
	{"sql number", `{"ID":12,"Name":"output rows","Update":-4,"Value":7,"Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, 0, 1},
	{"sql plus", `{"ID":13,"Name":"x","Update":"+4","Value":"4","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, 0, 1},
	{"sql time", `{"ID":14,"Name":"x","Update":"00:00:01","Value":"1","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, 0, 0},
	{"sql escaped value", `{"ID":15,"Name":"x","Update":"1","Value":"\\1","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, 0, 1},
	{"sql not internal", `{"ID":16,"Name":"x","Update":"2","Value":"2","Internal":false,"Count Failed Values":true,"Metadata":"sql"}`, 0, 1},
	{"other metadata", `{"ID":17,"Name":"x","Update":"2","Value":"2","Internal":true,"Count Failed Values":true,"Metadata":"other"}`, 0, 0},
	{"cut", `{"ID":10,"Name":"x","Update":1,"Value":1,"Internal":true,"Count Failed Val`, -1, 0},
}

// TestInternalAccumulables: each element decodes on the fast path as the
// general decoder decodes it, before and after a skipped internal one.
func TestInternalAccumulables(t *testing.T) {
	internal := accumLines[0].elem
	for _, c := range accumLines {
		for _, elems := range [][]string{{c.elem}, {internal, c.elem, internal}} {
			ln := `{"Event":"SparkListenerTaskEnd","Stage ID":1,"Task Info":{"Task ID":2,"Accumulables":[` +
				strings.Join(elems, ",") + `]},"Task Metrics":{"Executor Run Time":5}}`
			d := NewDecoder()
			fast := checkFastPath(t, d, []byte(ln))
			if c.kept < 0 {
				if fast {
					t.Errorf("%s: got the fast path for a cut line, want the general one", c.name)
				}
				continue
			}
			ev, err := d.DecodeLine([]byte(ln))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			te, ok := ev.(*TaskEnd)
			if !ok {
				t.Fatalf("%s: got %T, want *TaskEnd", c.name, ev)
			}
			if got := len(te.Info.Accumulables); got != c.kept {
				t.Errorf("%s in %d elements: got %d accumulables kept, want %d", c.name, len(elems), got, c.kept)
			}
			if got := len(te.Info.SQLUpdates); got != c.sql {
				t.Errorf("%s in %d elements: got %d SQL updates, want %d", c.name, len(elems), got, c.sql)
			}
		}
	}
}

// TestInternalAccumTakes: which elements the straight pass takes (the
// others are left, unread, to the general reading).
func TestInternalAccumTakes(t *testing.T) {
	takes := map[string]bool{"internal": true, "negative values": true, "sql metadata": true, "string update": true,
		"string id": true, "sql string": true, "sql number": true, "sql plus": true, "sql time": true}
	for _, c := range accumLines {
		s := scanner{b: []byte(c.elem + `,`)}
		var sql []AccumUpdate
		got := s.internalAccum(&sql)
		if got != takes[c.name] {
			t.Errorf("%s: got taken %v, want %v", c.name, got, takes[c.name])
		}
		if !got && (s.i != 0 || s.bad || s.depth != 0 || len(sql) != 0) {
			t.Errorf("%s: not taken, yet the scanner moved to %d (bad %v, depth %d, %d updates)", c.name, s.i, s.bad, s.depth, len(sql))
		}
		if got && s.b[s.i] != ',' {
			t.Errorf("%s: taken, stopped at %d, want the end of the element", c.name, s.i)
		}
	}
}

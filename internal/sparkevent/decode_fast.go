package sparkevent

import (
	"slices"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Task start and end events are most of every log, so they get a fast path
// that walks the line once without building a JSON tree. It handles the
// shapes Spark writes; on anything else (escaped strings, odd types,
// non-integer numbers, malformed JSON) it gives up and the line goes through
// the general fastjson decoder, which also produces the error messages.
// FuzzFastPath checks that both paths decode every line alike.

const (
	prefixTaskEnd   = `{"Event":"SparkListenerTaskEnd",`
	prefixTaskStart = `{"Event":"SparkListenerTaskStart",`
	successReason   = `{"Reason":"Success"}`
)

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// fastDecode returns the event of a task line, or nil to use the general path.
func (d *Decoder) fastDecode(line []byte) Event {
	switch taskEvent(line) {
	case prefixTaskEnd:
		s := scanner{b: line}
		e := d.newTaskEnd()
		e.Info.PartitionID = -1
		e.Reason.Reason = "Success"
		var seen uint8
		s.object(func(k []byte) {
			// A repeated field is read differently by the general path
			// (first or last wins): leave such lines to it.
			if bit := topFieldBit(k); bit != 0 {
				if seen&bit != 0 {
					s.bad = true
					return
				}
				seen |= bit
			}
			d.taskEndField(&s, k, e)
		})
		if !s.end() || seen&topFieldBit([]byte("Task Info")) == 0 {
			return nil
		}
		e.ExecMetrics.Set = true
		return e
	case prefixTaskStart:
		s := scanner{b: line}
		e := d.newTaskStart()
		e.Info.PartitionID = -1
		var seen uint8
		s.object(func(k []byte) {
			if bit := topFieldBit(k); bit != 0 {
				if seen&bit != 0 {
					s.bad = true
					return
				}
				seen |= bit
			}
			switch string(k) {
			case "Stage ID":
				e.StageID = int(s.int())
			case "Stage Attempt ID":
				e.StageAttempt = int(s.int())
			case "Task Info":
				d.fastTaskInfo(&s, &e.Info)
			default:
				s.skip()
			}
		})
		if !s.end() || seen&topFieldBit([]byte("Task Info")) == 0 {
			return nil
		}
		return e
	}
	return nil
}

// bigLine is the length past which a task line Spark did not write
// itself (white space between tokens, "Event" not first) is still taken
// by the fast path: through the general path's JSON tree, a 55 MB task
// end with 420,000 accumulables held 1.3 GB (issue 32).
const bigLine = 64 << 10

// taskEvent tells a task start or end line by its prefix (as Spark writes
// it), or for a line past bigLine by its top-level "Event" wherever it
// is; "" for any other line.
func taskEvent(line []byte) string {
	switch {
	case hasPrefix(line, prefixTaskEnd):
		return prefixTaskEnd
	case hasPrefix(line, prefixTaskStart):
		return prefixTaskStart
	case len(line) < bigLine:
		return ""
	}
	s := scanner{b: line}
	name := ""
	s.object(func(k []byte) {
		if string(k) != "Event" || name != "" || s.peek() != '"' {
			s.skip()
			return
		}
		v, esc := s.rawString()
		if esc {
			s.bad = true
		}
		name = string(v)
	})
	if s.bad {
		return ""
	}
	switch name {
	case "SparkListenerTaskEnd":
		return prefixTaskEnd
	case "SparkListenerTaskStart":
		return prefixTaskStart
	}
	return ""
}

func topFieldBit(k []byte) uint8 {
	switch string(k) {
	case "Stage ID":
		return 1
	case "Stage Attempt ID":
		return 2
	case "Task Type":
		return 4
	case "Task End Reason":
		return 8
	case "Task Info":
		return 16
	case "Task Executor Metrics":
		return 32
	case "Task Metrics":
		return 64
	}
	return 0
}

func (d *Decoder) taskEndField(s *scanner, k []byte, e *TaskEnd) {
	switch string(k) {
	case "Stage ID":
		e.StageID = int(s.int())
	case "Stage Attempt ID":
		e.StageAttempt = int(s.int())
	case "Task Type":
		e.TaskType = d.intern(s.str())
	case "Task End Reason":
		start := s.i
		s.skip()
		if s.bad {
			return
		}
		raw := s.b[start:s.i]
		if isSuccessReason(raw) {
			e.Reason = TaskEndReason{Reason: "Success"}
			return
		}
		v, err := d.sub.ParseBytes(raw)
		if err != nil {
			s.bad = true
			return
		}
		e.Reason = endReason(v)
	case "Task Info":
		d.fastTaskInfo(s, &e.Info)
	case "Task Executor Metrics":
		e.ExecMetrics = model.ExecutorMetrics{Set: true}
		s.object(func(k []byte) {
			if i := model.ExecutorMetricIndex(string(k)); i >= 0 {
				e.ExecMetrics.Values[i] = s.int()
			} else {
				s.skip()
			}
		})
	case "Task Metrics":
		if s.null() {
			return
		}
		fastTaskMetrics(d.metrics, s, &e.Metrics)
	default:
		s.skip()
	}
}

func isSuccessReason(raw []byte) bool { return string(raw) == successReason }

func (d *Decoder) fastTaskInfo(s *scanner, ti *TaskInfo) {
	s.object(func(k []byte) {
		switch string(k) {
		case "Partition ID":
			if c := s.peek(); c == '-' || (c >= '0' && c <= '9') {
				ti.PartitionID = int(s.int())
			} else {
				s.skip()
			}
		case "Accumulables":
			d.sqlScratch = d.sqlScratch[:0]
			ti.Accumulables = d.fastAccumulables(s, &d.sqlScratch)
			if len(d.sqlScratch) > 0 {
				ti.SQLUpdates = slices.Clone(d.sqlScratch)
			}
		default:
			i64, i, str, b := taskInfoSlot(ti, k)
			switch {
			case i64 != nil:
				*i64 = s.int()
			case i != nil:
				*i = int(s.int())
			case str != nil:
				*str = d.intern(s.str())
			case b != nil:
				*b = s.bool()
			default:
				s.skip()
			}
		}
	})
}

func (d *Decoder) fastAccumulables(s *scanner, sqlUpdates *[]AccumUpdate) []model.Accumulable {
	var out []model.Accumulable
	s.array(func() {
		var acc model.Accumulable
		// Raw name and JSON values, read only if the accumulable is kept:
		// most are internal task metrics that replay drops, and interning
		// their names was most of the decoder's map lookups.
		var name, update, value []byte
		s.object(func(k []byte) {
			switch string(k) {
			case "ID":
				acc.ID = s.int()
			case "Name":
				name = s.str()
			case "Internal":
				acc.Internal = s.bool()
			case "Metadata":
				acc.SQL = string(s.str()) == "sql"
			case "Update":
				update = s.raw()
			case "Value":
				value = s.raw()
			default:
				s.skip()
			}
		})
		if s.bad {
			return
		}
		if acc.SQL && update != nil {
			if n, err := strconv.ParseInt(string(s.scalarOf(update)), 10, 64); err == nil {
				*sqlUpdates = append(*sqlUpdates, AccumUpdate{ID: acc.ID, Value: n})
			}
		}
		if acc.Internal || acc.SQL {
			return
		}
		if name != nil {
			acc.Name = d.intern(name)
		}
		if update != nil {
			acc.Update, acc.HasUpdate = string(s.scalarOf(update)), true
		}
		if value != nil {
			acc.Value = string(s.scalarOf(value))
		}
		out = append(out, acc)
	})
	return out
}

// fastTaskMetrics is taskMetrics on the scanner.
func fastTaskMetrics(g *model.MetricGroup, s *scanner, m *model.TaskMetrics) {
	hint := 0
	s.object(func(k []byte) {
		if s.peek() == '{' {
			if sub := g.Group(k); sub != nil {
				fastTaskMetrics(sub, s, m)
				return
			}
		} else if f := g.Field(k, &hint); f != nil {
			*f.Of(m) = s.int()
			return
		}
		s.skip()
	})
}

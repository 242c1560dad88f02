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
	var seen uint8
	// A repeated field is read differently by the general path (first or
	// last wins): leave such lines to it.
	once := func(s *scanner, i int) bool {
		if i <= teEvent {
			return true
		}
		if seen&(1<<i) != 0 {
			s.bad = true
			return false
		}
		seen |= 1 << i
		return true
	}
	const infoSeen = 1 << teTaskInfo
	switch taskEvent(line) {
	case prefixTaskEnd:
		s := scanner{b: line}
		e := d.newTaskEnd()
		e.Info.PartitionID = -1
		e.Reason.Reason = "Success"
		s.fields(d.keys.taskEvent, func(i int, _ []byte) {
			if once(&s, i) {
				d.taskEndField(&s, i, e)
			}
		})
		if !s.end() || seen&infoSeen == 0 {
			return nil
		}
		e.ExecMetrics.Set = true
		return e
	case prefixTaskStart:
		s := scanner{b: line}
		e := d.newTaskStart()
		e.Info.PartitionID = -1
		s.fields(d.keys.taskEvent, func(i int, _ []byte) {
			if !once(&s, i) {
				return
			}
			switch i {
			case teStageID:
				e.StageID = int(s.int())
			case teStageAttempt:
				e.StageAttempt = int(s.int())
			case teTaskInfo:
				d.fastTaskInfo(&s, &e.Info)
			default:
				s.skip()
			}
		})
		if !s.end() || seen&infoSeen == 0 {
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

func (d *Decoder) taskEndField(s *scanner, i int, e *TaskEnd) {
	switch i {
	case teStageID:
		e.StageID = int(s.int())
	case teStageAttempt:
		e.StageAttempt = int(s.int())
	case teTaskType:
		e.TaskType = d.intern(s.str())
	case teReason:
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
	case teTaskInfo:
		d.fastTaskInfo(s, &e.Info)
	case teExecMetrics:
		e.ExecMetrics = model.ExecutorMetrics{Set: true}
		s.fields(d.keys.execMetrics, func(i int, _ []byte) {
			if i >= 0 {
				e.ExecMetrics.Values[i] = s.int()
			} else {
				s.skip()
			}
		})
	case teMetrics:
		if s.null() {
			return
		}
		fastTaskMetrics(d.keys.metrics, s, &e.Metrics)
	default:
		s.skip()
	}
}

func isSuccessReason(raw []byte) bool { return string(raw) == successReason }

func (d *Decoder) fastTaskInfo(s *scanner, ti *TaskInfo) {
	s.fields(d.keys.taskInfo, func(k int, _ []byte) {
		switch k {
		case tiPartitionID:
			if c := s.peek(); c == '-' || (c >= '0' && c <= '9') {
				ti.PartitionID = int(s.int())
			} else {
				s.skip()
			}
		case tiAccumulables:
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
		if s.internalAccum(sqlUpdates) {
			return
		}
		var acc model.Accumulable
		// Raw name and JSON values, read only if the accumulable is kept:
		// most are internal task metrics that replay drops, and interning
		// their names was most of the decoder's map lookups.
		var name, update, value []byte
		s.fields(d.keys.accum, func(k int, _ []byte) {
			switch k {
			case acID:
				acc.ID = s.int()
			case acName:
				name = s.str()
			case acInternal:
				acc.Internal = s.bool()
			case acMetadata:
				acc.SQL = string(s.str()) == "sql"
			case acUpdate:
				update = s.raw()
			case acValue:
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
func fastTaskMetrics(g *metricKeys, s *scanner, m *model.TaskMetrics) {
	nf, ng := len(g.g.Fields), len(g.subs)
	s.fields(g.keys, func(i int, _ []byte) {
		switch {
		case i >= nf+ng:
		case i >= nf:
			if s.peek() == '{' {
				fastTaskMetrics(g.subs[i-nf], s, m)
				return
			}
		case i >= 0:
			if s.peek() != '{' {
				*g.g.Fields[i].Of(m) = s.int()
				return
			}
		}
		s.skip()
	})
}

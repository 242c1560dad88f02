package eventlog

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
	switch {
	case hasPrefix(line, prefixTaskEnd):
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
	case hasPrefix(line, prefixTaskStart):
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

func (d *Decoder) taskEndField(s *scanner, k []byte, e *EventTaskEnd) {
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
		fastTaskMetrics(s, &e.Metrics)
	default:
		s.skip()
	}
}

func isSuccessReason(raw []byte) bool { return string(raw) == successReason }

func (d *Decoder) fastTaskInfo(s *scanner, ti *TaskInfo) {
	s.object(func(k []byte) {
		switch string(k) {
		case "Task ID":
			ti.TaskID = s.int()
		case "Index":
			ti.Index = int(s.int())
		case "Attempt":
			ti.Attempt = int(s.int())
		case "Partition ID":
			if c := s.peek(); c == '-' || (c >= '0' && c <= '9') {
				ti.PartitionID = int(s.int())
			} else {
				s.skip()
			}
		case "Launch Time":
			ti.LaunchTime = s.int()
		case "Getting Result Time":
			ti.GettingResultTime = s.int()
		case "Finish Time":
			ti.FinishTime = s.int()
		case "Executor ID":
			ti.ExecutorID = d.intern(s.str())
		case "Host":
			ti.Host = d.intern(s.str())
		case "Locality":
			ti.Locality = d.intern(s.str())
		case "Speculative":
			ti.Speculative = s.bool()
		case "Failed":
			ti.Failed = s.bool()
		case "Killed":
			ti.Killed = s.bool()
		case "Accumulables":
			d.sqlScratch = d.sqlScratch[:0]
			ti.Accumulables = d.fastAccumulables(s, &d.sqlScratch)
			if len(d.sqlScratch) > 0 {
				ti.SQLUpdates = slices.Clone(d.sqlScratch)
			}
		default:
			s.skip()
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

func fastTaskMetrics(s *scanner, m *model.TaskMetrics) {
	s.object(func(k []byte) {
		switch string(k) {
		case "Executor Deserialize Time":
			m.ExecutorDeserializeTime = s.int()
		case "Executor Deserialize CPU Time":
			m.ExecutorDeserializeCpuTime = s.int()
		case "Executor Run Time":
			m.ExecutorRunTime = s.int()
		case "Executor CPU Time":
			m.ExecutorCpuTime = s.int()
		case "Peak Execution Memory":
			m.PeakExecutionMemory = s.int()
		case "Peak On Heap Execution Memory":
			m.PeakOnHeapExecutionMemory = s.int()
		case "Peak Off Heap Execution Memory":
			m.PeakOffHeapExecutionMemory = s.int()
		case "Result Size":
			m.ResultSize = s.int()
		case "JVM GC Time":
			m.JvmGcTime = s.int()
		case "Result Serialization Time":
			m.ResultSerializationTime = s.int()
		case "Memory Bytes Spilled":
			m.MemoryBytesSpilled = s.int()
		case "Disk Bytes Spilled":
			m.DiskBytesSpilled = s.int()
		case "Shuffle Read Metrics":
			r := &m.ShuffleRead
			s.object(func(k []byte) {
				if k := string(k); k == "Push Based Shuffle" {
					s.object(func(k []byte) {
						if p := pushField(&r.Push, string(k)); p != nil {
							*p = s.int()
						} else {
							s.skip()
						}
					})
				} else if p := shuffleReadField(r, k); p != nil {
					*p = s.int()
				} else {
					s.skip()
				}
			})
		case "Shuffle Write Metrics":
			w := &m.ShuffleWrite
			s.object(func(k []byte) {
				if p := shuffleWriteField(w, string(k)); p != nil {
					*p = s.int()
				} else {
					s.skip()
				}
			})
		case "Input Metrics":
			s.object(func(k []byte) {
				switch string(k) {
				case "Bytes Read":
					m.InputBytesRead = s.int()
				case "Records Read":
					m.InputRecordsRead = s.int()
				default:
					s.skip()
				}
			})
		case "Output Metrics":
			s.object(func(k []byte) {
				switch string(k) {
				case "Bytes Written":
					m.OutputBytesWritten = s.int()
				case "Records Written":
					m.OutputRecordsWritten = s.int()
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
}

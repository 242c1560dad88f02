package sparkevent

import (
	"encoding/binary"

	"github.com/sparkdx/sparkdx/internal/model"
)

// keyOrder is the keys of one kind of object in the order Spark's
// JsonProtocol writes them. The scanner recognises a key in that order by
// one comparison with the key expected next, instead of scanning the key
// and looking it up: on a task end (about a hundred keys) scanning and
// matching keys was two fifths of decoding.
type keyOrder struct {
	quoted []string // each name as written, with its colon: `"Task ID":`
	// head and mask are the first (up to) eight bytes of each quoted key
	// as a little-endian word, so that most keys that do not match fail
	// on one comparison of words.
	head, mask []uint64
	pos        map[string]int
}

func newKeyOrder(names ...string) *keyOrder {
	n := len(names)
	k := &keyOrder{quoted: make([]string, n), head: make([]uint64, n), mask: make([]uint64, n),
		pos: make(map[string]int, n)}
	for i, name := range names {
		q := `"` + name + `":`
		var w [8]byte
		m := copy(w[:], q)
		k.quoted[i], k.head[i], k.mask[i] = q, binary.LittleEndian.Uint64(w[:]), ^uint64(0)>>(64-8*m)
		k.pos[name] = i
	}
	return k
}

// at reports whether b starts with the i-th quoted key.
func (k *keyOrder) at(b []byte, i int) bool {
	q := k.quoted[i]
	if len(b) < 8 {
		return hasPrefix(b, q)
	}
	if binary.LittleEndian.Uint64(b)&k.mask[i] != k.head[i] {
		return false
	}
	return len(q) <= 8 || hasPrefix(b[8:], q[8:])
}

// match returns the position of the quoted key b starts with, looking
// from `from` on, then from the start: an optional key Spark did not
// write, or a group written in another order than the table's, moves the
// keys along; -1 when none matches (b starting with white space, which no
// quoted key does, included).
func (k *keyOrder) match(b []byte, from int) int {
	for i := from; i < len(k.quoted); i++ {
		if k.at(b, i) {
			return i
		}
	}
	for i := range min(from, len(k.quoted)) {
		if k.at(b, i) {
			return i
		}
	}
	return -1
}

// index returns the position of key, or -1.
func (k *keyOrder) index(key []byte) int {
	if k == nil {
		return -1
	}
	if i, ok := k.pos[string(key)]; ok {
		return i
	}
	return -1
}

// fields reads an object, calling field with the position in k of each
// key, or -1 and the key for one k does not hold (every key when k is
// nil); field must read the value (or skip it).
func (s *scanner) fields(k *keyOrder, field func(i int, key []byte)) {
	if s.open('{') {
		s.members(k, field)
		s.depth--
	}
}

// members reads an object's members after its '{'.
func (s *scanner) members(k *keyOrder, field func(i int, key []byte)) {
	if s.peek() == '}' {
		s.i++
		return
	}
	next := 0
	for !s.bad {
		// The key after the previous one is nearly always the next key:
		// checked here, inlined, before a search.
		i := -1
		if k != nil {
			if b := s.b[s.i:]; next < len(k.quoted) && k.at(b, next) {
				i = next
			} else {
				i = k.match(b, next+1)
			}
		}
		var key []byte
		if i >= 0 {
			s.i += len(k.quoted[i])
			next = i + 1
		} else {
			if s.peek() != '"' {
				s.bad = true
				return
			}
			var esc bool
			key, esc = s.rawString()
			if esc || s.peek() != ':' {
				s.bad = true
				return
			}
			s.i++
			if i = k.index(key); i >= 0 {
				next = i + 1
			}
		}
		field(i, key)
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.bad = true
		}
	}
}

// The positions in taskInfoKeys (Spark 3.3+ order; older logs lack
// "Partition ID", which costs them one lookup).
const (
	tiTaskID = iota
	tiIndex
	tiAttempt
	tiPartitionID
	tiLaunchTime
	tiExecutorID
	tiHost
	tiLocality
	tiSpeculative
	tiGettingResultTime
	tiFinishTime
	tiFailed
	tiKilled
	tiAccumulables
)

func taskInfoKeys() *keyOrder {
	return newKeyOrder("Task ID", "Index", "Attempt", "Partition ID", "Launch Time", "Executor ID", "Host",
		"Locality", "Speculative", "Getting Result Time", "Finish Time", "Failed", "Killed", "Accumulables")
}

// The positions in taskEventKeys: a task end's keys, of which a task start
// has the first three and "Task Info".
const (
	teEvent = iota
	teStageID
	teStageAttempt
	teTaskType
	teReason
	teTaskInfo
	teExecMetrics
	teMetrics
)

func taskEventKeys() *keyOrder {
	return newKeyOrder("Event", "Stage ID", "Stage Attempt ID", "Task Type", "Task End Reason", "Task Info",
		"Task Executor Metrics", "Task Metrics")
}

// The positions in accumKeys.
const (
	acID = iota
	acName
	acUpdate
	acValue
	acInternal
	acCountFailed
	acMetadata
)

func accumKeys() *keyOrder {
	return newKeyOrder("ID", "Name", "Update", "Value", "Internal", "Count Failed Values", "Metadata")
}

// executorMetricKeys are Spark's executor metrics: a position is the
// metric's index in model.ExecutorMetrics.
func executorMetricKeys() *keyOrder {
	names := model.ExecutorMetricNames()
	return newKeyOrder(names[:]...)
}

// metricKeys is a task-metrics group's keys: its fields', then its nested
// groups' (subs, in the same order).
type metricKeys struct {
	g    *model.MetricGroup
	keys *keyOrder
	subs []*metricKeys
}

// newMetricKeys builds g's keys; skipped are keys Spark writes beside the
// metrics that are read as unknown ones, named so as to be matched fast.
func newMetricKeys(g *model.MetricGroup, skipped ...string) *metricKeys {
	m := &metricKeys{g: g}
	var names []string
	for _, f := range g.Fields {
		names = append(names, f.Log)
	}
	for _, sub := range g.Groups {
		names = append(names, sub.Log)
		m.subs = append(m.subs, newMetricKeys(sub))
	}
	m.keys = newKeyOrder(append(names, skipped...)...)
	return m
}

// decoderKeys are the key orders of the objects the fast path reads.
type decoderKeys struct {
	taskEvent, taskInfo, accum, execMetrics *keyOrder
	metrics                                 *metricKeys
}

func newDecoderKeys(metrics *model.MetricGroup) decoderKeys {
	return decoderKeys{taskEvent: taskEventKeys(), taskInfo: taskInfoKeys(), accum: accumKeys(),
		execMetrics: executorMetricKeys(), metrics: newMetricKeys(metrics, "Updated Blocks")}
}

package profile

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Task is what an executor's task thread is named after: Spark names it
// "Executor task launch worker for task 3.0 in stage 1.0 (TID 4)" when
// the task starts (3.0: partition 3, attempt 0; 1.0: stage 1, attempt 0).
type Task struct {
	Stage, StageAttempt int
	Partition           string // "3.0"
	TID                 int64
}

var taskThread = regexp.MustCompile(`^Executor task launch worker for task (\d+(?:\.\d+)?) in stage (\d+)\.(\d+) \(TID (\d+)\)$`)

// ParseTaskThread reads a task thread's name; ok is false for any other
// thread, and for Spark 2's names, which lack the stage.
func ParseTaskThread(name string) (t Task, ok bool) {
	m := taskThread.FindStringSubmatch(name)
	if m == nil {
		return Task{}, false
	}
	t.Partition = m[1]
	t.Stage, _ = strconv.Atoi(m[2])
	t.StageAttempt, _ = strconv.Atoi(m[3])
	t.TID, _ = strconv.ParseInt(m[4], 10, 64)
	return t, true
}

// Names is the name of each thread over time, read from thread dumps
// during a recording. JFR keeps the name a thread had when the recording
// first saw it (JDK 17 and 25 alike), but Spark renames its pooled
// worker threads for every task, so a sample's thread name comes from
// the dumps instead.
type Names struct {
	seen map[int64][]nameAt // by OS thread id, in time order
}

// nameAt is a thread's name in a dump the JVM took at some time between
// from and to (the request and its answer).
type nameAt struct {
	from, to time.Time
	name     string
}

// BetweenTasks names the thread of a sample taken while its name changed:
// the dumps before and after it disagree, so the task is not known.
const BetweenTasks = "(thread renamed between two dumps)"

// Add records the threads of one dump taken between from and to; dumps
// are added in time order.
func (n *Names) Add(from, to time.Time, threads map[int64]string) {
	if n.seen == nil {
		n.seen = map[int64][]nameAt{}
	}
	for tid, name := range threads {
		n.seen[tid] = append(n.seen[tid], nameAt{from, to, name})
	}
}

// At is the name of thread tid at t: the name the dumps before and after
// t agree on (Spark's task names carry the task's unique id, so two
// equal names mean one task throughout), BetweenTasks when they differ,
// the nearest dump's name before the first or after the last dump, and
// "" when no dump saw the thread. A dump's moment is only known to lie
// in its request's round trip, so a dump whose round trip holds t
// brackets it on neither side.
func (n *Names) At(tid int64, t time.Time) string {
	before, after, ok := n.bracket(tid, t)
	switch {
	case !ok:
		return ""
	case before == after:
		return before
	}
	return BetweenTasks
}

// StageAt is the stage thread tid worked on at t when the dumps around t
// name two tasks of one stage attempt: the task changed between them but
// not the stage (a stage's short tasks follow each other on the same
// pooled thread, faster than dumps come on a quiet machine). The task's
// partition and id are unknown (TID -1).
func (n *Names) StageAt(tid int64, t time.Time) (Task, bool) {
	before, after, ok := n.bracket(tid, t)
	if !ok {
		return Task{}, false
	}
	a, okA := ParseTaskThread(before)
	b, okB := ParseTaskThread(after)
	if !okA || !okB || a.Stage != b.Stage || a.StageAttempt != b.StageAttempt {
		return Task{}, false
	}
	return Task{Stage: a.Stage, StageAttempt: a.StageAttempt, TID: -1}, true
}

// bracket is the names of thread tid in the dumps around t, as At reads
// them; ok is false when no dump saw the thread.
func (n *Names) bracket(tid int64, t time.Time) (before, after string, ok bool) {
	seen := n.seen[tid]
	if len(seen) == 0 {
		return "", "", false
	}
	// a: the first dump begun at t or later.
	a, _ := slices.BinarySearchFunc(seen, t, func(x nameAt, t time.Time) int { return x.from.Compare(t) })
	b := a - 1 // the last dump answered by t
	for b >= 0 && seen[b].to.After(t) {
		b--
	}
	// t inside the last or the first dump: that dump brackets it.
	if a == len(seen) {
		if b == len(seen)-1 {
			return seen[b].name, seen[b].name, true
		}
		a = len(seen) - 1
	}
	if b < 0 {
		if a == 0 {
			return seen[0].name, seen[0].name, true
		}
		b = 0
	}
	return seen[b].name, seen[a].name, true
}

// parseThreadDump reads the threads of a Thread.print answer: each
// thread's first line is its quoted name, then "#N", then fields among
// which nid=0x1f2e (JDK 17) or nid=7982 (JDK 19 and later), the OS id.
func parseThreadDump(dump string) map[int64]string {
	out := map[int64]string{}
	for line := range strings.Lines(dump) {
		if !strings.HasPrefix(line, `"`) {
			continue
		}
		end := strings.LastIndex(line, `" #`)
		if end < 1 {
			continue
		}
		_, nid, ok := strings.Cut(line[end:], " nid=")
		if !ok {
			continue
		}
		nid, _, _ = strings.Cut(nid, " ")
		var id int64
		var err error
		if h, ok := strings.CutPrefix(nid, "0x"); ok {
			id, err = strconv.ParseInt(h, 16, 64)
		} else {
			id, err = strconv.ParseInt(nid, 10, 64)
		}
		if err == nil {
			out[id] = line[1:end]
		}
	}
	return out
}

package s3a

import (
	"slices"
	"strings"
)

// Kind tells what a statistic counts.
type Kind string

// Kinds of operation in a summary's statistics, by Hadoop's naming
// (org.apache.hadoop.fs.statistics.StoreStatisticNames): object_*,
// action_http_* and multipart_* are single requests to the store; op_*
// are FileSystem calls made of several requests (a rename lists, copies
// and deletes); committer_* are the committer's own stages.
const (
	KindRequest   Kind = "request"
	KindCall      Kind = "call"
	KindCommitter Kind = "committer"
	KindOther     Kind = "other"
)

// KindOf classifies a statistic by its name.
func KindOf(name string) Kind {
	switch {
	case strings.HasPrefix(name, "object_"), strings.HasPrefix(name, "action_http_"),
		strings.HasPrefix(name, "multipart_"):
		return KindRequest
	case strings.HasPrefix(name, "op_"):
		return KindCall
	case strings.HasPrefix(name, "committer_"):
		return KindCommitter
	}
	return KindOther
}

// Operation is one kind of operation the job did, with what Hadoop
// measured of it.
type Operation struct {
	Name     string `json:"name"` // Hadoop's statistic name: "object_put_request", "op_rename"
	Kind     Kind   `json:"kind"`
	Count    int64  `json:"count"`              // successful ones
	Failures int64  `json:"failures,omitempty"` // failed ones
	// DurationMs is Σ duration of every one, failed ones included; 0 when
	// Hadoop counts the operation without timing it.
	DurationMs int64 `json:"durationMs"`
	MaxMs      int64 `json:"maxMs,omitempty"`
	Timed      bool  `json:"timed"` // Hadoop tracks its duration
}

// Operations lists every operation in the statistics: those Hadoop times
// (a "<name>.mean" statistic; Hadoop keeps failures apart as
// "<name>.failures…"), and the counters of requests it only counts.
// Sorted by time, then count, then name.
func (s *Summary) Operations() []Operation {
	st := s.Stats
	ops := map[string]*Operation{}
	for key, m := range st.Means {
		name, ok := strings.CutSuffix(key, ".mean")
		if !ok {
			continue
		}
		if base, failed := strings.CutSuffix(name, ".failures"); failed {
			op := operation(ops, base)
			op.Failures = max(op.Failures, m.Samples)
			op.DurationMs += max(m.Sum, 0)
			continue
		}
		op := operation(ops, name)
		op.Timed = true
		op.Count = max(op.Count, m.Samples)
		op.DurationMs += max(m.Sum, 0)
		op.MaxMs = max(op.MaxMs, st.Maximums[name+".max"])
	}
	for name, n := range st.Counters {
		if base, failed := strings.CutSuffix(name, ".failures"); failed {
			if op, ok := ops[base]; ok {
				op.Failures = max(op.Failures, n)
			}
			continue
		}
		if op, ok := ops[name]; ok {
			op.Count = max(op.Count, n)
		} else if IsRequestCounter(name) && n > 0 {
			operation(ops, name).Count = n
		}
	}
	out := make([]Operation, 0, len(ops))
	for _, op := range ops {
		if op.Count > 0 || op.Failures > 0 || op.DurationMs > 0 {
			out = append(out, *op)
		}
	}
	slices.SortFunc(out, func(a, b Operation) int {
		switch {
		case a.DurationMs != b.DurationMs:
			return cmpDesc(a.DurationMs, b.DurationMs)
		case a.Count != b.Count:
			return cmpDesc(a.Count, b.Count)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Requests lists the operations that are single requests to the store.
func (s *Summary) Requests() []Operation {
	var out []Operation
	for _, op := range s.Operations() {
		if op.Kind == KindRequest {
			out = append(out, op)
		}
	}
	return out
}

func operation(ops map[string]*Operation, name string) *Operation {
	op, ok := ops[name]
	if !ok {
		op = &Operation{Name: name, Kind: KindOf(name)}
		ops[name] = op
	}
	return op
}

// IsRequestCounter tells a counter of one kind of request from the byte
// and object counters beside it (object_put_bytes,
// object_delete_objects), the totals (store_io_request) and the progress
// of other counters (object_put_request_completed, …_active).
func IsRequestCounter(name string) bool {
	if KindOf(name) != KindRequest || strings.Contains(name, "_request_") || strings.Contains(name, ".") {
		return false
	}
	for _, s := range []string{"_request", "_requests", "_initiated", "_completed", "_aborted", "_part_put"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

func cmpDesc(a, b int64) int {
	if a > b {
		return -1
	}
	return 1
}

// Bytes is what the job wrote to the store, as the committer counts it
// (committer_bytes_committed), else as the PUT requests did.
func (s *Summary) Bytes() int64 {
	c := s.Stats.Counters
	if n := c["committer_bytes_committed"]; n > 0 {
		return n
	}
	return c["object_put_bytes"]
}

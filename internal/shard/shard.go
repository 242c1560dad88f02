// Package shard splits the event logs of one directory between several
// sparkdx serve instances: each log belongs to exactly one of N shards,
// decided from its name alone, so that an instance skips the logs of the
// others before reading a byte of them and any instance can tell which
// one owns an application.
//
// The split is fixed: FNV-1a (32 bits) of the log's application key,
// modulo N. Changing it would move applications between instances on an
// upgrade, so it must not change; TestOfFixed pins it.
package shard

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Spec is one instance's place in the split: it owns the logs whose key
// hashes to Index modulo Count. The zero Spec (Count 0) owns everything.
type Spec struct {
	Index, Count int
}

// Parse reads "I/N" (0 ≤ I < N); "" is the zero Spec. I may also be a
// StatefulSet pod's name, whose ordinal ends it ("sparkdx-serve-2/3" is
// 2/3), so that every replica is given the same argument.
func Parse(s string) (Spec, error) {
	if s == "" {
		return Spec{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard %q: want I/N, as 0/2", s)
	}
	if k := strings.LastIndexByte(i, '-'); k > 0 && digits(i[k+1:]) {
		i = i[k+1:] // a pod name's ordinal
	}
	idx, err1 := strconv.Atoi(i)
	cnt, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("shard %q: want I/N with whole numbers, as 0/2", s)
	}
	sp := Spec{Index: idx, Count: cnt}
	if cnt < 1 {
		return Spec{}, fmt.Errorf("shard %q: want N ≥ 1", s)
	}
	return sp, sp.Validate()
}

// Validate checks 0 ≤ Index < Count (or the zero Spec).
func (s Spec) Validate() error {
	if s.Index == 0 && s.Count == 0 {
		return nil // the zero Spec: no split
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: want 0 ≤ I < N", s.Index, s.Count)
	}
	return nil
}

// Enabled says whether the logs are split at all.
func (s Spec) Enabled() bool { return s.Count > 1 }

func (s Spec) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Owns says whether this instance takes the log of that base name (a
// file, a rolling directory, or a rotation directory).
func (s Spec) Owns(logName string) bool {
	return !s.Enabled() || Of(LogKey(logName), s.Count) == s.Index
}

// OwnerOfApp is the shard that takes the logs of an application id.
func (s Spec) OwnerOfApp(appID string) int {
	if !s.Enabled() {
		return s.Index
	}
	return Of(AppKey(appID), s.Count)
}

// Of is the shard of a key among n: FNV-1a of the key, modulo n.
func Of(key string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// LogKey is what a log's shard is computed from: its base name without
// `.inprogress`, codec extension or `.compact` (Spark sanitises dots out
// of application ids, so the first dot starts the suffixes), without the
// rolling directory's `eventlog_v2_` prefix, and without an attempt
// number, so that every form and attempt of one application lands on
// the same shard: `eventlog_v2_app-1`, `app-1.lz4`, `app-1.inprogress`.
func LogKey(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	name = strings.TrimPrefix(name, "eventlog_v2_")
	return withoutAttempt(name)
}

// AppKey is the LogKey of an application id's logs: the id sanitised as
// Spark names its log files (EventLogFileWriter.nameForAppAndAttempt).
func AppKey(appID string) string {
	r := strings.NewReplacer(" ", "-", ":", "-", "/", "-", ".", "_", "$", "_", "{", "_", "}", "_", "'", "_", `"`, "_")
	return withoutAttempt(strings.ToLower(r.Replace(appID)))
}

// withoutAttempt drops an attempt number, so that the attempts of one
// application share a shard: Spark names an attempt's log
// <appId>_<attempt>, and application ids have no underscore but YARN's
// application_<cluster>_<seq>, whose own last part is kept.
func withoutAttempt(name string) string {
	parts := strings.Split(name, "_")
	if len(parts) < 2 || !digits(parts[len(parts)-1]) {
		return name
	}
	if parts[0] == "application" && len(parts) == 3 {
		return name // a YARN application id without an attempt
	}
	return strings.Join(parts[:len(parts)-1], "_")
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

package agent

// JVM is what a HotSpot JVM publishes in its hsperfdata file: collectors,
// memory pools, classes, threads, safepoints and JIT time.
type JVM struct {
	HsperfPath         string  `json:"hsperfPath"`
	StartTime          int64   `json:"startTime"`
	GC                 []GC    `json:"gc"`
	Memory             []Pool  `json:"memory"`
	HeapUsedBytes      uint64  `json:"heapUsedBytes"`
	HeapCommittedBytes uint64  `json:"heapCommittedBytes"`
	HeapMaxBytes       uint64  `json:"heapMaxBytes"`
	OldGenUsedBytes    uint64  `json:"oldGenUsedBytes"`
	OldGenMaxBytes     uint64  `json:"oldGenMaxBytes"`
	ClassesLoaded      uint64  `json:"classesLoaded"`
	ClassesUnloaded    uint64  `json:"classesUnloaded"`
	ThreadsLive        uint64  `json:"threadsLive"`
	ThreadsDaemon      uint64  `json:"threadsDaemon"`
	ThreadsPeak        uint64  `json:"threadsPeak"`
	Safepoints         uint64  `json:"safepoints"`
	SafepointSeconds   float64 `json:"safepointSeconds"`
	JITCompileSeconds  float64 `json:"jitCompileSeconds"`
}

// GC is one garbage collector's cumulative work.
type GC struct {
	Name        string  `json:"name"`
	Collections uint64  `json:"collections"`
	Seconds     float64 `json:"seconds"`
}

// Pool is one memory area: a heap generation or space, metaspace or the
// compressed class space.
type Pool struct {
	Name           string `json:"name"`
	Type           string `json:"type"` // heap or non_heap
	UsedBytes      uint64 `json:"usedBytes"`
	CommittedBytes uint64 `json:"committedBytes"`
	MaxBytes       uint64 `json:"maxBytes,omitempty"`
}

// jvmCollector reads a JVM's hsperfdata file.
type jvmCollector struct {
	procRoot string
}

// collect returns the JVM section of a process, or why there is none.
func (c jvmCollector) collect(pid int, startMillis int64, errs map[string]int) (*JVM, string) {
	return nil, "hsperfdata reader not built in"
}

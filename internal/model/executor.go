package model

// Executor is one executor (or the driver) as the History Server shows it.
type Executor struct {
	ID                string
	HostPort          string
	Host              string
	IsActive          bool
	TotalCores        int
	MaxTasks          int
	AddTime           int64
	RemoveTime        int64
	RemoveReason      string
	ResourceProfileID int

	RDDBlocks  int
	MemoryUsed int64
	DiskUsed   int64
	MaxMemory  int64

	TotalTasks        int
	ActiveTasks       int
	CompletedTasks    int
	FailedTasks       int
	TotalDuration     int64
	TotalGCTime       int64
	TotalInputBytes   int64
	TotalShuffleRead  int64
	TotalShuffleWrite int64

	IsExcluded       bool
	ExcludedInStages map[int]struct{}

	Logs       [][2]string
	Attributes [][2]string
	Resources  []ResourceInfo

	// Storage memory; TotalOnHeap < 0 means the log never reported it.
	TotalOnHeap  int64
	TotalOffHeap int64
	UsedOnHeap   int64
	UsedOffHeap  int64

	Peak ExecutorMetrics
}

// HasMemoryInfo tells whether on/off-heap storage memory was reported.
func (e *Executor) HasMemoryInfo() bool { return e.TotalOnHeap >= 0 }

// Hostname is the host without port.
func (e *Executor) Hostname() string {
	if e.Host != "" {
		return e.Host
	}
	for i := 0; i < len(e.HostPort); i++ {
		if e.HostPort[i] == ':' {
			return e.HostPort[:i]
		}
	}
	return e.HostPort
}

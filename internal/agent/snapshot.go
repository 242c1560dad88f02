package agent

import (
	"encoding/json"
	"io"
)

// Snapshot is one sampling cycle: every Spark process found on the node, the
// node itself, and the events seen since the previous cycle. It is the JSON
// written by `sparkdx agent --once --format json` (camelCase keys, sizes in
// bytes, times in epoch milliseconds).
type Snapshot struct {
	Host      string         `json:"host"`
	Time      int64          `json:"time"`
	Processes []Process      `json:"processes"`
	Node      Node           `json:"node"`
	Events    []Event        `json:"events,omitempty"`
	Errors    map[string]int `json:"errors,omitempty"` // reads that failed this cycle, by source
}

// Process is one Spark JVM (driver, executor, daemon) with its process tree.
type Process struct {
	PID         int    `json:"pid"`
	NSPid       int    `json:"nsPid,omitempty"` // pid inside its container's PID namespace
	PPID        int    `json:"ppid"`
	Role        Role   `json:"role"`
	AppID       string `json:"appId,omitempty"`
	ExecutorID  string `json:"executorId,omitempty"`
	Cores       int    `json:"cores,omitempty"`
	Hostname    string `json:"hostname,omitempty"`
	ContainerID string `json:"containerId,omitempty"`
	MainClass   string `json:"mainClass"`
	Cmdline     string `json:"cmdline"`
	UID         int    `json:"uid"`
	StartTime   int64  `json:"startTime"`
	State       string `json:"state"`

	RSSBytes         uint64  `json:"rssBytes"`
	PSSBytes         uint64  `json:"pssBytes,omitempty"`
	RSSPeakBytes     uint64  `json:"rssPeakBytes"`
	CPUUserSeconds   float64 `json:"cpuUserSeconds"`
	CPUSystemSeconds float64 `json:"cpuSystemSeconds"`
	Threads          int     `json:"threads"`
	OpenFDs          int     `json:"openFds"`
	ReadBytes        uint64  `json:"readBytes"`
	WriteBytes       uint64  `json:"writeBytes"`

	// Tree sums the process and its descendants by kind, as Spark's
	// ProcfsMetricsGetter does for executor metrics.
	Tree      map[Kind]TreeSum `json:"tree"`
	Container *Container       `json:"container,omitempty"`
	JVM       *JVM             `json:"jvm,omitempty"`
	// JVMUnavailable says why there is no JVM section (for instance a JVM
	// started with -XX:-UsePerfData); /proc data is still reported.
	JVMUnavailable string  `json:"jvmUnavailable,omitempty"`
	Children       []Child `json:"children,omitempty"`
	// Launcher is the Python process that started a driver JVM (python
	// job.py, a notebook kernel, an Airflow task): the user's program, whose
	// memory and CPU belong to the application though it is not below the
	// JVM.
	Launcher *Child `json:"launcher,omitempty"`
	HeapDump string `json:"heapDump,omitempty"` // path of a dump that finished this cycle
	// Spark is a driver's last answer from its REST API (Config.SparkREST).
	Spark *SparkApp `json:"spark,omitempty"`

	startTicks uint64
	gid        int
}

// Child is a descendant of a Spark JVM that is not itself a Spark JVM:
// Python workers (pyspark.daemon and its forks, pyspark.worker), shells,
// and anything else the executor started.
type Child struct {
	PID              int     `json:"pid"`
	PPID             int     `json:"ppid"`
	Kind             Kind    `json:"kind"`
	Name             string  `json:"name"` // Python module (pyspark.daemon) or program name
	Cmdline          string  `json:"cmdline"`
	State            string  `json:"state"`
	RSSBytes         uint64  `json:"rssBytes"`
	PSSBytes         uint64  `json:"pssBytes,omitempty"`
	CPUUserSeconds   float64 `json:"cpuUserSeconds"`
	CPUSystemSeconds float64 `json:"cpuSystemSeconds"`
	Threads          int     `json:"threads"`
}

// TreeSum is the sum over the processes of one kind in a process tree.
type TreeSum struct {
	Processes        int     `json:"processes"`
	RSSBytes         uint64  `json:"rssBytes"`
	PSSBytes         uint64  `json:"pssBytes"`
	CPUUserSeconds   float64 `json:"cpuUserSeconds"`
	CPUSystemSeconds float64 `json:"cpuSystemSeconds"`
}

// WriteJSON writes the snapshot as indented JSON, leaving <, > and & in
// command lines as they are.
func (s *Snapshot) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

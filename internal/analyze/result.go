// Package analyze turns a replayed application attempt into the numbers a
// person needs to see where its time went: the phase timeline (waiting for
// executors, computing, writing output, driver only), the critical path and
// an executor-count what-if, and per-stage, per-executor and per-SQL-node
// statistics. It computes; package diagnose judges; package report renders.
package analyze

// Result is everything the analyzer derives from one attempt. Times are
// epoch milliseconds, durations milliseconds, sizes bytes.
type Result struct {
	AppID      string
	AttemptID  string
	StartTime  int64
	EndTime    int64 // last event time when the app did not end (now, for a running app: see AnalyzeAt)
	DurationMs int64 // EndTime - StartTime
	Completed  bool
	Running    bool // analysed while it runs: the phases and duration run to now

	// Headline is the key numbers every view shows, computed once.
	Headline     Headline
	Phases       Phases
	Timeline     []Interval // consecutive, covering StartTime..EndTime
	CriticalPath CriticalPath
	WhatIf       []WhatIf // executor-count what-if at 0.5×, 1×, 2×, 4×
	Config       Config
	// Settings are the properties a person tunes, as the app ran with
	// them (Spark's defaults where it set none): what diff compares.
	Settings []Setting

	Stages    []Stage    // by stage id, then attempt
	Executors []Executor // in order of first appearance; the driver included
	SQL       []SQLExecution
	Jobs      []Job
	Failures  Failures
	Streaming []StreamingQuery // Structured Streaming query runs, by start
	Plugins   Plugins          // accelerators: RAPIDS (GPU), Photon
	// Memory sizes the executors against their peaks; nil without peaks.
	Memory *MemorySizing
}

// Phase names a kind of wall time in the timeline.
type Phase string

// Phases of an application's wall time. Each instant belongs to exactly one.
const (
	PhaseResourceWait Phase = "resourceWait" // work waiting for executors (or before the first one)
	PhaseCompute      Phase = "compute"      // stages running on executors
	PhaseOutputWrite  Phase = "outputWrite"  // write stages and the driver-side job commit
	PhaseDriverOnly   Phase = "driverOnly"   // no stage running
)

// Phases sums the timeline per phase. The four add up to DurationMs.
type Phases struct {
	ResourceWaitMs int64 `json:"resourceWaitMs"`
	ComputeMs      int64 `json:"computeMs"`
	OutputWriteMs  int64 `json:"outputWriteMs"`
	DriverOnlyMs   int64 `json:"driverOnlyMs"`
	// FirstExecutorDelayMs is application start to the first executor added.
	FirstExecutorDelayMs int64 `json:"-"`
}

// Ratio is one phase's share of the total; 0 when the total is 0.
func (p Phases) Ratio(ph Phase) float64 {
	total := p.ResourceWaitMs + p.ComputeMs + p.OutputWriteMs + p.DriverOnlyMs
	if total <= 0 {
		return 0
	}
	var v int64
	switch ph {
	case PhaseResourceWait:
		v = p.ResourceWaitMs
	case PhaseCompute:
		v = p.ComputeMs
	case PhaseOutputWrite:
		v = p.OutputWriteMs
	case PhaseDriverOnly:
		v = p.DriverOnlyMs
	}
	return float64(v) / float64(total)
}

// Interval is a stretch of wall time spent in one phase.
type Interval struct {
	Start, End int64
	Phase      Phase
}

// CriticalPath is Sparklens' view of the application's lower bounds: with
// unlimited executors the app cannot finish faster than CriticalPathMs, and
// with the recorded cores perfectly used it needs IdealMs.
type CriticalPath struct {
	CriticalPathMs int64 `json:"criticalPathMs"` // driver time + longest stage chain (max task per stage) per job group
	IdealMs        int64 `json:"idealMs"`        // driver time + Σ task time ÷ cores per job group
	DriverMs       int64 `json:"driverMs"`       // wall time outside any job
	TaskTimeMs     int64 `json:"taskTimeMs"`     // Σ duration of every finished task attempt
	MaxCores       int   `json:"maxCores"`       // most executor cores alive at once
	MaxExecutors   int   `json:"maxExecutors"`   // most executors alive at once
	// ColdStartMs is what an executor's first task paid beyond its stage's
	// median (JVM warm-up, Python workers starting), on average: the
	// what-if charges it once per simulated executor.
	ColdStartMs int64 `json:"coldStartMs"`
	// StageIDs are the stages of the critical path: each job group's
	// longest chain, from its first stage to its last, groups in order
	// (the stages whose longest tasks add up to CriticalPathMs less
	// DriverMs). The reports' per-stage profile lines follow it.
	StageIDs []int `json:"stageIds,omitempty"`
}

// WhatIf is the wall time on different executors and cores, keyed by
// what it simulates (Label). The 1× row is the recorded run (Actual); the
// others are the recorded wall time plus what the simulation changes.
type WhatIf struct {
	Factor    float64 `json:"factor"`
	Executors int     `json:"executors"`
	Cores     int     `json:"cores"` // in all, over the executors
	// Local says the run is local mode: one JVM, local[Cores].
	Local          bool    `json:"local"`
	Actual         bool    `json:"actual"`
	EstimatedMs    int64   `json:"estimatedMs"`
	SimulatedMs    int64   `json:"simulatedMs"` // the replay's own wall time on these cores
	ClusterUtilPct float64 `json:"clusterUtilizationPct"`
}

// Config holds the Spark properties the analyzer and rules read, with
// Spark's defaults applied where the log does not set them.
type Config struct {
	Master                string
	ExecutorMemoryBytes   int64 // spark.executor.memory (default 1g)
	ExecutorOverheadBytes int64 // spark.executor.memoryOverhead, or max(384m, factor × memory)
	PySparkMemoryBytes    int64 // spark.executor.pyspark.memory; 0 when unset
	OffHeapBytes          int64 // spark.memory.offHeap.size when enabled
	ExecutorCores         int   // spark.executor.cores; 0 when unset
	DriverMemoryBytes     int64
	MaxResultSizeBytes    int64 // spark.driver.maxResultSize (default 1g; 0 = unlimited)
	TaskMaxFailures       int   // spark.task.maxFailures (default 4)
	Speculation           bool
	ProcessTreeMetrics    bool
	RequestedExecutors    int // spark.executor.instances or spark.dynamicAllocation.maxExecutors
	DynamicAllocation     bool
	// InitialExecutors is what the app asks for before any task is
	// pending: spark.executor.instances, or with dynamic allocation
	// max(initialExecutors, minExecutors, instances) (0 by default).
	InitialExecutors int
	Committer        string
}

// ContainerBytes is the memory a cluster manager grants one executor.
func (c Config) ContainerBytes() int64 {
	return c.ExecutorMemoryBytes + c.ExecutorOverheadBytes + c.PySparkMemoryBytes + c.OffHeapBytes
}

// Quantiles are p50/p95/max of a set of values.
type Quantiles struct {
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
	Max int64 `json:"max"`
}

// Stage is one stage attempt's statistics, in groups that are each
// computed in one place (stages.go, and capacity in analyze.go): its
// identity and span here, then the task times, the data it moved, how
// evenly its tasks shared the work, the cores it had, and how its task
// attempts ended. The groups are embedded, so s.GCTimeMs reads as before.
type Stage struct {
	StageID, AttemptID int
	Name               string
	Status             string
	JobIDs             []int
	SQLExecutionID     int64 // -1 when none
	NumTasks           int   // as Spark planned it
	SubmissionTime     int64
	CompletionTime     int64
	FirstLaunchTime    int64 // its first task's launch; NoTime before any
	// DurationMs is Spark UI's stage duration: first task launch to
	// completion. QueuedMs is the time before: submitted, waiting for a
	// core (behind other stages, or for executors).
	DurationMs int64
	QueuedMs   int64
	IsWrite    bool // writes output (bytes/records or a write command)

	TaskTimes
	StageIO
	Balance
	Capacity
	Outcomes
	GPU GPUStage // the RAPIDS Accelerator's metrics; zero without them
}

// TaskTimes is where a stage's task time went, as Spark's stage page
// splits it.
type TaskTimes struct {
	TaskDurationMs Quantiles // successful attempts, launch to finish
	RunTimeMs      Quantiles // successful attempts, executor run time
	TaskTimeMs     int64     // Σ duration of every finished attempt
	RunTimeTotalMs int64     // Σ executor run time
	CPUTimeMs      int64     // Σ executor CPU time (Spark records ns): run time minus waiting (I/O, locks, GC)
	// PeakExecutionMemoryBytes is the largest task's peak execution
	// memory (sort, aggregation and join buffers), not Spark's sum.
	PeakExecutionMemoryBytes int64
	GCTimeMs                 int64 // JVM GC time, as Spark sums it
	// GCShareMs is Σ per task of min(JVM GC time, executor run time): the
	// numerator of every GC share, which then stays ≤ 100 % (a task's GC
	// time is the executor JVM's while it ran, other tasks' included).
	GCShareMs        int64
	DeserializeMs    int64
	SerializeMs      int64 // result serialization
	SchedulerDelayMs int64 // Σ duration − run − deserialize − serialize − getting result
}

// StageIO is the data a stage read, wrote, shuffled and spilled: Spark's
// stage totals.
type StageIO struct {
	InputBytes, InputRecords               int64
	OutputBytes, OutputRecords             int64
	ShuffleReadBytes, ShuffleReadRecords   int64
	ShuffleWriteBytes, ShuffleWriteRecords int64
	ShuffleWriteTimeNs                     int64
	FetchWaitMs                            int64
	MemorySpilledBytes                     int64
	DiskSpilledBytes                       int64
	ResultBytes                            int64
}

// Balance is how evenly a stage's successful tasks shared its work,
// overall and per host.
type Balance struct {
	TaskBytes        Quantiles // input + shuffle read per successful task
	TaskRecords      Quantiles // input + shuffle read records per successful task
	SkewDuration     float64   // max ÷ median task duration
	SkewBytes        float64   // max ÷ median task bytes
	MaxTaskOverStage float64   // longest task ÷ stage duration
	// LongestTaskEndsStage: the longest successful task finished last,
	// within max(1 s, 5 % of the stage): the stage waited for it, even
	// when it started late (locality wait, a second wave) and so ran
	// for less than most of the stage.
	LongestTaskEndsStage bool
	// Longest is the longest successful task that did not start on a
	// fresh executor: what it read against the median task tells skew
	// (more data) from a straggler (the same data, more time).
	Longest LongTask
	// Slow are the warm successful tasks that ran at least twice the
	// median, longest first (at most 20): who straggled, where.
	Slow []LongTask

	Hosts []HostStat // per-host task time, by host
}

// LongTask is one stage's longest warm task: the first tasks on a fresh
// executor (started before its first task finished) pay deserialization,
// class loading and JIT warm-up, about a second, and are left out when
// that explains their excess over the median (warmUpMs).
type LongTask struct {
	TaskID            int64
	DurationMs, RunMs int64
	GCMs              int64 // JVM GC time while it ran
	Bytes, Records    int64 // input + shuffle read
	Host, ExecutorID  string
	Locality          string
	// InputRatio is the larger of its bytes ÷ the median task's and its
	// records ÷ the median task's (a median of nothing counting as one);
	// 0 when it read nothing the log counts.
	InputRatio float64
	// ColdSkipped counts the stage's fresh-executor tasks that ran longer.
	ColdSkipped int
	// EndsStage says the task finished last (within max(1 s, 5 % of the
	// stage)): the stage waited for it.
	EndsStage bool
	// FirstOnExecutor says it was in its executor's first wave of the
	// stage (launched before any of the stage's tasks on that executor
	// finished, one per core), which pays for compiling the stage's
	// generated code and fetching its task binary on that JVM.
	FirstOnExecutor bool
}

// Capacity is the cores a stage had while it ran, and what else used
// them.
type Capacity struct {
	CoresAvailable int     // executor cores alive while the stage ran
	PRatio         float64 // tasks ÷ cores
	// ClusterBusy is the task time of every stage run while this stage
	// ran, ÷ (CoresAvailable × DurationMs): near 1 the cores were busy
	// with other stages even if this one had few tasks.
	ClusterBusy float64
}

// Outcomes is how a stage's task attempts ended, and what the failed,
// killed and losing speculative ones cost.
type Outcomes struct {
	Attempts           int // task attempts finished
	Succeeded          int
	Failed             int // failed, not counting killed
	Killed             int
	FailedTaskMs       int64 // Σ duration of the failed attempts
	KilledTaskMs       int64 // Σ duration of the killed attempts
	FetchFailures      int
	SpeculativeTasks   int            // speculative attempts launched
	SpeculativeWins    int            // speculative attempts that succeeded
	SpeculationWasteMs int64          // run time of attempts that lost a race (killed, or running at the stage's end)
	FailureReasons     map[string]int // exception class or end reason → count
	FailureReason      string         // the stage's own failure message
}

// HostStat is one host's share of one stage.
type HostStat struct {
	Host         string
	Tasks        int
	MedianTaskMs int64
	TaskTimeMs   int64
	MedianBytes  int64
}

// Executor is one executor's (or the driver's) statistics.
type Executor struct {
	ID              string
	Host            string
	Cores           int
	AddedTime       int64
	RemovedTime     int64 // NoTime (-1) while alive at the end
	LifetimeMs      int64
	BusyMs          int64   // Σ task duration
	Utilization     float64 // BusyMs ÷ (LifetimeMs × Cores)
	WastedCoreHours float64

	Tasks, FailedTasks int
	OOMTaskErrors      int // failed tasks whose error is an OutOfMemoryError
	GCTimeMs           int64
	GCShareMs          int64 // Σ per task of min(GC, run time), as Stage.GCShareMs
	RunTimeMs          int64

	PeakJVMHeapBytes    int64
	PeakJVMOffHeapBytes int64
	PeakPythonRSSBytes  int64
	PeakJVMRSSBytes     int64
	PeakOtherRSSBytes   int64
	MajorGCCount        int64
	HasPeaks            bool

	RemovedReason string
	Loss          Loss
}

// Cause classifies why an executor went away.
type Cause string

// Causes of executor loss.
const (
	CauseNone            Cause = ""
	CauseContainerMemory Cause = "container-memory" // 137, YARN/K8s memory kill
	CauseJVMOOM          Cause = "jvm-oom"          // OutOfMemoryError, exit 52 or 3
	CauseSigterm         Cause = "sigterm"          // 143
	CausePreempted       Cause = "preempted"
	CauseHeartbeat       Cause = "heartbeat"
	CauseDecommission    Cause = "decommission"
	CauseIdle            Cause = "idle"      // dynamic allocation released it
	CauseDriver          Cause = "driver"    // the driver stopped it (app end, killed by driver)
	CauseNodeLost        Cause = "node-lost" // the node went away (YARN lost node)
	CauseUnknown         Cause = "unknown"
)

// Loss explains an executor removal.
type Loss struct {
	Cause       Cause
	ExitCode    int  // -1 when none was reported
	CausedByApp bool // the loss failed tasks and Spark blamed the app
	Unrelated   bool // the loss failed tasks and Spark said it was unrelated to them
	FailedTasks int  // task attempts failed by this loss
}

// Job is one job's span and stages.
type Job struct {
	ID             int
	SubmissionTime int64
	CompletionTime int64
	Status         string
	StageIDs       []int
	SQLExecutionID int64
	ResultBytes    int64 // Σ task result size of its stages
}

// SQLExecution is one SQL query with per-node metric values.
type SQLExecution struct {
	ID          int64
	Description string
	StartTime   int64
	EndTime     int64
	JobIDs      []int
	IsWrite     bool
	Nodes       []SQLNode // plan in pre-order
}

// SQLNode is one physical plan node with the metrics Spark recorded.
type SQLNode struct {
	ID       int // pre-order index in the plan
	Name     string
	Desc     string // its description in the plan: keys, condition, columns (planDesc)
	Stages   []int  // the stages whose tasks updated its metrics: where it ran
	Children []int
	Metrics  map[string]int64 // metric name → value (timings in ms, nsTiming converted)
	Rows     int64            // "number of output rows", -1 when absent
	// Pairs are the pairs of rows a cartesian product or nested-loop join
	// tested (joinPairs); 0 for other nodes or when unknown.
	Pairs  int64
	TimeMs int64 // Σ of the node's timing metrics
}

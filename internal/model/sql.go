package model

// SQLPlanNode is a node of a SQL physical plan (SparkPlanInfo).
type SQLPlanNode struct {
	NodeName     string
	SimpleString string
	Children     []*SQLPlanNode
	Metrics      []SQLMetric
}

// SQLMetric names an accumulator that carries one plan metric.
type SQLMetric struct {
	Name          string
	AccumulatorID int64
	MetricType    string
}

// SQLExecution is one SQL query execution.
type SQLExecution struct {
	ID           int64
	RootID       int64
	Description  string
	Details      string
	PhysicalPlan string
	Plan         *SQLPlanNode
	StartTime    int64
	EndTime      int64
	ErrorMessage string
	// HasErrorMessage: the end event carried one ("" on success); logs
	// before Spark 3.4 have none, and then the jobs tell whether it failed.
	HasErrorMessage bool
	QueryID         string // Spark 4.1+
	// ModifiedConfigs are the SQL settings the session changed (Spark 3.4+).
	ModifiedConfigs [][2]string
	JobIDs          []int // as the jobs started; SparkJobOrder lists them as Spark does
	AQEUpdates      int
	DriverUpdates   map[int64]int64 // accumulator id -> value, from the driver
	// MetricValues are the SQL tab's strings for the plan's metrics
	// (sqlplan.StringValue over every task), by accumulator id: fixed
	// when the query ended, its values so far while it runs.
	MetricValues map[int64]string
}

// StreamingQuery is one Structured Streaming query run.
type StreamingQuery struct {
	ID        string
	RunID     string
	Name      string
	StartTime int64
	EndTime   int64
	Exception string
	Progress  []StreamingProgress
}

// StreamingProgress is one micro-batch progress report.
type StreamingProgress struct {
	BatchID                int64
	Time                   int64 // epoch ms
	BatchDurationMs        int64
	NumInputRows           int64
	InputRowsPerSecond     float64
	ProcessedRowsPerSecond float64
	DurationMs             map[string]int64
	// StateRows and StateMemoryBytes sum the stateful operators' rows and
	// state-store memory after the batch (Spark's numRowsTotal and
	// memoryUsedBytes); 0 for a stateless query.
	StateRows        int64
	StateMemoryBytes int64
}

// SparkJobOrder lists JobIDs as Spark does (a query's running, succeeded
// and failed job ids): in the iteration order of its immutable map of
// jobs, which is the start order up to four jobs and follows the ids'
// hashes beyond.
func (x *SQLExecution) SparkJobOrder() []int {
	hashes := make([]int32, len(x.JobIDs))
	for i, id := range x.JobIDs {
		hashes[i] = IntHash(id)
	}
	return Reorder(x.JobIDs, ImmutableOrder(hashes))
}

// SparkConfigOrder lists ModifiedConfigs as Spark 4.3's History Server
// does: it reads the event's object into an immutable map, which keeps the
// log's order up to four keys and follows the keys' hashes beyond. A key
// the log repeats keeps its first place and its last value, as the map's
// builder does.
func (x *SQLExecution) SparkConfigOrder() [][2]string {
	at := make(map[string]int, len(x.ModifiedConfigs))
	var kvs [][2]string
	for _, kv := range x.ModifiedConfigs {
		if i, ok := at[kv[0]]; ok {
			kvs[i][1] = kv[1]
			continue
		}
		at[kv[0]] = len(kvs)
		kvs = append(kvs, kv)
	}
	hashes := make([]int32, len(kvs))
	for i, kv := range kvs {
		hashes[i] = StringHash(kv[0])
	}
	return Reorder(kvs, ImmutableOrder(hashes))
}

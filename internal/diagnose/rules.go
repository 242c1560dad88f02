package diagnose

// All lists every rule in report order. New rules get new IDs.
var All = []*Rule{
	IncompleteApp,
	ExecutorLost,
	OOMRisk,
	PythonMemory,
	TaskFailures,
	ResourceWait,
	SlowOutputWrite,
	S3DominatedWrite,
	S3ACommitterBypassed,
	DataSkew,
	StragglerHost,
	Spill,
	GPUSpill,
	GCPressure,
	ShuffleBottleneck,
	JoinExplosion,
	SmallFiles,
	TinyTasks,
	LowParallelism,
	SpeculationWaste,
	IdleExecutors,
	LargeResultToDriver,
	DriverDegradation,
	StreamingBehind,
}

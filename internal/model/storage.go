package model

// RDDPartition is one cached block of an RDD.
type RDDPartition struct {
	BlockName    string
	StorageLevel string
	MemoryUsed   int64
	DiskUsed     int64
	Executors    []string
}

// RDDDistribution is one executor's share of a cached RDD.
type RDDDistribution struct {
	ExecutorID  string
	MemoryUsed  int64
	DiskUsed    int64
	OnHeapUsed  int64
	OffHeapUsed int64
}

// RDD is a persisted RDD the listener tracks.
type RDD struct {
	ID            int
	Name          string
	NumPartitions int
	StorageLevel  string
	UseDisk       bool
	UseMemory     bool
	UseOffHeap    bool
	Deserialized  bool
	Replication   int
	MemoryUsed    int64
	DiskUsed      int64
	Partitions    []*RDDPartition
	Distributions []*RDDDistribution
}

package analyze

import (
	"math"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// readConfig reads the Spark properties the analysis needs, applying
// Spark's defaults (core/.../internal/config/package.scala).
func readConfig(env *model.Environment) Config {
	props := make(map[string]string, len(env.SparkProperties))
	for _, p := range env.SparkProperties {
		props[p[0]] = p[1]
	}
	get := func(k string) (string, bool) { v, ok := props[k]; return v, ok }
	c := Config{Master: props["spark.master"], TaskMaxFailures: 4, MaxResultSizeBytes: gib,
		ExecutorMemoryBytes: gib, DriverMemoryBytes: gib}
	if v, ok := get("spark.executor.memory"); ok {
		c.ExecutorMemoryBytes = ParseSize(v, mib, c.ExecutorMemoryBytes)
	}
	if v, ok := get("spark.driver.memory"); ok {
		c.DriverMemoryBytes = ParseSize(v, mib, c.DriverMemoryBytes)
	}
	// Kubernetes reserves 0.40 for non-JVM (Python, R) jobs (docs/running-on-kubernetes.md).
	factor := 0.10
	if strings.HasPrefix(c.Master, "k8s") && (props["spark.kubernetes.resource.type"] == "python" ||
		props["spark.kubernetes.resource.type"] == "r") {
		factor = 0.40
	}
	for _, k := range []string{"spark.kubernetes.memoryOverheadFactor", "spark.executor.memoryOverheadFactor"} {
		if f, err := strconv.ParseFloat(strings.TrimSpace(props[k]), 64); err == nil && f > 0 {
			factor = f
		}
	}
	c.ExecutorOverheadBytes = max(384*mib, int64(factor*float64(c.ExecutorMemoryBytes)))
	for _, k := range []string{"spark.executor.memoryOverhead", "spark.yarn.executor.memoryOverhead",
		"spark.kubernetes.executor.memoryOverhead"} {
		if v, ok := get(k); ok {
			c.ExecutorOverheadBytes = ParseSize(v, mib, c.ExecutorOverheadBytes)
			break
		}
	}
	if v, ok := get("spark.executor.pyspark.memory"); ok {
		c.PySparkMemoryBytes = ParseSize(v, mib, 0)
	}
	if props["spark.memory.offHeap.enabled"] == "true" {
		c.OffHeapBytes = ParseSize(props["spark.memory.offHeap.size"], 1, 0)
	}
	if v, ok := get("spark.executor.cores"); ok {
		c.ExecutorCores, _ = strconv.Atoi(strings.TrimSpace(v))
	}
	if v, ok := get("spark.driver.maxResultSize"); ok {
		c.MaxResultSizeBytes = ParseSize(v, 1, c.MaxResultSizeBytes)
	}
	if v, ok := get("spark.task.maxFailures"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			c.TaskMaxFailures = n
		}
	}
	if n, ok := localMaxFailures(c.Master); ok {
		c.TaskMaxFailures = n
	}
	c.Speculation = props["spark.speculation"] == "true"
	c.ProcessTreeMetrics = props["spark.executor.processTreeMetrics.enabled"] == "true"
	c.DynamicAllocation = props["spark.dynamicAllocation.enabled"] == "true"
	key := "spark.executor.instances"
	if c.DynamicAllocation {
		key = "spark.dynamicAllocation.maxExecutors"
	}
	if v, ok := get(key); ok {
		c.RequestedExecutors, _ = strconv.Atoi(strings.TrimSpace(v))
	}
	atoi := func(k string) int {
		n, _ := strconv.Atoi(strings.TrimSpace(props[k]))
		return n
	}
	c.InitialExecutors = atoi("spark.executor.instances")
	if c.DynamicAllocation {
		c.InitialExecutors = max(atoi("spark.dynamicAllocation.initialExecutors"),
			atoi("spark.dynamicAllocation.minExecutors"), c.InitialExecutors)
	}
	c.Committer = props["spark.sql.sources.commitProtocolClass"]
	if v := props["spark.hadoop.fs.s3a.committer.name"]; v != "" {
		c.Committer = "s3a:" + v
	}
	return c
}

// ParseSize reads a Spark size string ("4g", "512m", "1024k", "3t", "100b",
// "2gb", or a bare number counted in unit). It returns def when s does not parse.
func ParseSize(s string, unit, def int64) int64 {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := unit
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kb", kib}, {"mb", mib}, {"gb", gib}, {"tb", gib << 10}, {"pb", gib << 20},
		{"k", kib}, {"m", mib}, {"g", gib}, {"t", gib << 10}, {"p", gib << 20}, {"b", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			mult, s = u.mult, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return def
	}
	return n * mult
}

// localMaxFailures is what local mode uses instead of
// spark.task.maxFailures (SparkContext.createTaskScheduler): 1 for "local"
// and "local[N]", F for "local[N,F]". ok is false outside local mode
// (local-cluster reads spark.task.maxFailures).
func localMaxFailures(master string) (int, bool) {
	if master != "local" && !strings.HasPrefix(master, "local[") {
		return 0, false
	}
	if _, f, ok := strings.Cut(strings.TrimSuffix(master, "]"), ","); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			return n, true
		}
	}
	return 1, true
}

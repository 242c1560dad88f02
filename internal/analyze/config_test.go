package analyze

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

func TestReadConfig(t *testing.T) {
	env := func(kv ...string) *model.Environment {
		e := &model.Environment{}
		for i := 0; i+1 < len(kv); i += 2 {
			e.SparkProperties = append(e.SparkProperties, [2]string{kv[i], kv[i+1]})
		}
		return e
	}
	for _, c := range []struct {
		name                            string
		env                             *model.Environment
		heap, overhead, container, init int64
	}{
		{"defaults", env(), gib, 384 * mib, gib + 384*mib, 0},
		{"8g heap", env("spark.executor.memory", "8g"), 8 * gib, 8 * gib / 10, 8*gib + 8*gib/10, 0},
		{"explicit overhead and pyspark", env("spark.executor.memory", "4g", "spark.executor.memoryOverhead", "1g",
			"spark.executor.pyspark.memory", "2g"), 4 * gib, gib, 7 * gib, 0},
		{"k8s python", env("spark.master", "k8s://https://k:443", "spark.kubernetes.resource.type", "python",
			"spark.executor.memory", "10g"), 10 * gib, 4 * gib, 14 * gib, 0},
		{"off-heap", env("spark.memory.offHeap.enabled", "true", "spark.memory.offHeap.size", "2147483648",
			"spark.executor.instances", "5"), gib, 384 * mib, 3*gib + 384*mib, 5},
		{"dynamic allocation", env("spark.dynamicAllocation.enabled", "true", "spark.dynamicAllocation.minExecutors", "2",
			"spark.dynamicAllocation.initialExecutors", "3"), gib, 384 * mib, gib + 384*mib, 3},
	} {
		got := readConfig(c.env)
		if got.ExecutorMemoryBytes != c.heap || got.ExecutorOverheadBytes != c.overhead ||
			got.ContainerBytes() != c.container || int64(got.InitialExecutors) != c.init {
			t.Errorf("%s: got heap %d overhead %d container %d initial %d; want %d %d %d %d", c.name,
				got.ExecutorMemoryBytes, got.ExecutorOverheadBytes, got.ContainerBytes(), got.InitialExecutors,
				c.heap, c.overhead, c.container, c.init)
		}
	}
}

func TestLocalMaxFailures(t *testing.T) {
	for master, want := range map[string]int{"local": 1, "local[4]": 1, "local[*]": 1, "local[4,3]": 3,
		"local[*, 2]": 2, "local-cluster[2,1,1024]": 0, "yarn": 0, "spark://h:7077": 0} {
		got, ok := localMaxFailures(master)
		if got != want || ok != (want > 0) {
			t.Errorf("%s: got %d %v, want %d", master, got, ok, want)
		}
	}
}

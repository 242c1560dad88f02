package analyze

import (
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Setting is one Spark property that shapes how an application performs,
// as it ran with it: the value it set, or Spark's default when it set
// none (Default). Value is "" for a property whose default depends on
// the cluster (spark.executor.cores, spark.default.parallelism).
type Setting struct {
	Key     string `json:"key"`
	Value   string `json:"value"`
	Default bool   `json:"default"`
}

// Setting kinds: how a value compares (Same) and reads.
const (
	kindText = iota
	kindSize
	kindBool
	kindNumber
)

// tunedSetting is one property of the list: its default for a Spark
// version and how its values compare.
type tunedSetting struct {
	key  string
	kind int
	def  func(version string) string
}

func constant(v string) func(string) string { return func(string) string { return v } }

// tunedSettings are the properties read into Settings: those a person
// tunes for speed and memory (Spark's configuration and tuning guides),
// with Spark's defaults (core/.../internal/config/package.scala,
// SQLConf.scala). Their values are sizes, counts, flags and class names:
// no secret is among them.
var tunedSettings = []tunedSetting{
	{"spark.sql.shuffle.partitions", kindNumber, constant("200")},
	{"spark.default.parallelism", kindNumber, constant("")},
	{"spark.sql.files.maxPartitionBytes", kindSize, constant("128m")},
	{"spark.sql.adaptive.enabled", kindBool, func(v string) string { return strconv.FormatBool(VersionAtLeast(v, 3, 2)) }},
	{"spark.sql.adaptive.coalescePartitions.enabled", kindBool, constant("true")},
	{"spark.sql.adaptive.advisoryPartitionSizeInBytes", kindSize, constant("64m")},
	{"spark.sql.adaptive.skewJoin.enabled", kindBool, constant("true")},
	{"spark.sql.autoBroadcastJoinThreshold", kindSize, constant("10m")},
	{"spark.sql.adaptive.autoBroadcastJoinThreshold", kindSize, constant("")},
	{"spark.sql.join.preferSortMergeJoin", kindBool, constant("true")},
	{"spark.memory.fraction", kindNumber, constant("0.6")},
	{"spark.memory.storageFraction", kindNumber, constant("0.5")},
	{"spark.memory.offHeap.enabled", kindBool, constant("false")},
	{"spark.memory.offHeap.size", kindSize, constant("0")},
	{"spark.executor.memory", kindSize, constant("1g")},
	{"spark.executor.memoryOverhead", kindSize, constant("")},
	{"spark.executor.pyspark.memory", kindSize, constant("")},
	{"spark.executor.cores", kindNumber, constant("")},
	{"spark.executor.instances", kindNumber, constant("")},
	{"spark.cores.max", kindNumber, constant("")},
	{"spark.task.cpus", kindNumber, constant("1")},
	{"spark.dynamicAllocation.enabled", kindBool, constant("false")},
	{"spark.dynamicAllocation.minExecutors", kindNumber, constant("0")},
	{"spark.dynamicAllocation.maxExecutors", kindNumber, constant("")},
	{"spark.serializer", kindText, constant("org.apache.spark.serializer.JavaSerializer")},
	{"spark.shuffle.compress", kindBool, constant("true")},
	{"spark.speculation", kindBool, constant("false")},
	{"spark.locality.wait", kindText, constant("3s")},
	{"spark.driver.memory", kindSize, constant("1g")},
}

// settings reads the tuned properties of an environment.
func settings(env *model.Environment, version string) []Setting {
	props := make(map[string]string, len(env.SparkProperties))
	for _, p := range env.SparkProperties {
		props[p[0]] = p[1]
	}
	out := make([]Setting, 0, len(tunedSettings))
	for _, t := range tunedSettings {
		if v, ok := props[t.key]; ok {
			out = append(out, Setting{Key: t.key, Value: strings.TrimSpace(v)})
			continue
		}
		out = append(out, Setting{Key: t.key, Value: t.def(version), Default: true})
	}
	return out
}

// SameSetting tells whether two values of the property key are the same
// setting: sizes by bytes ("10m" = "10485760b"), flags and numbers by
// value, the rest as text.
func SameSetting(key, a, b string) bool {
	if a == b {
		return true
	}
	kind := kindText
	for _, t := range tunedSettings {
		if t.key == key {
			kind = t.kind
		}
	}
	switch kind {
	case kindSize:
		x, y := ParseSize(a, 1, -1), ParseSize(b, 1, -2)
		return x == y
	case kindBool:
		return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
	case kindNumber:
		x, errX := strconv.ParseFloat(strings.TrimSpace(a), 64)
		y, errY := strconv.ParseFloat(strings.TrimSpace(b), 64)
		return errX == nil && errY == nil && x == y
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// VersionAtLeast tells whether a Spark version string ("3.5.1",
// "4.0.0-SNAPSHOT") is at least major.minor; false when it does not parse.
func VersionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

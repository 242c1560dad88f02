package analyze

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Plugins are the accelerators an application ran with, recognised from
// its configuration, its plans' node names and the plugins' own metrics.
// Rules that read the JVM's task metrics say when a plugin's work is not
// in them; the reports name them and their versions in the header.
type Plugins struct {
	RAPIDS *Plugin `json:"rapids,omitempty"` // NVIDIA RAPIDS Accelerator: SQL on GPUs
	Photon *Plugin `json:"photon,omitempty"` // Databricks Photon: a native vectorized engine
}

// Plugin is one accelerator seen in the log.
type Plugin struct {
	Name    string `json:"name"`
	Version string `json:"version"` // "" when the log does not say
	// PlanNodes of AllNodes SQL plan nodes ran on it (Gpu… or Photon…
	// nodes); both 0 without SQL plans.
	PlanNodes int `json:"planNodes"`
	AllNodes  int `json:"allNodes"`
	// TaskSlots is, for RAPIDS, the tasks an executor runs at once as its
	// GPU resources allow (executor GPU amount ÷ task GPU amount), which
	// may be fewer than its cores; 0 when the configuration does not say.
	TaskSlots int `json:"taskSlots,omitempty"`
}

// Names of the plugins.
const (
	PluginRAPIDS = "RAPIDS Accelerator"
	PluginPhoton = "Photon"
)

// rapidsJar finds the plugin's version in its jar's name on the class
// path or in spark.jars: rapids-4-spark_2.12-24.06.0.jar,
// rapids-4-spark_2.13-25.02.1-cuda12.jar.
var rapidsJar = regexp.MustCompile(`rapids-4-spark_[0-9.]+-([0-9]+\.[0-9]+\.[0-9]+)`)

// plugins recognises the accelerators of an attempt.
func plugins(a *model.Attempt, sql []SQLExecution, stages []Stage) Plugins {
	props := map[string]string{}
	for _, p := range a.Env.SparkProperties {
		props[p[0]] = p[1]
	}
	var gpu, photon, all int
	for _, x := range sql {
		for _, n := range x.Nodes {
			all++
			switch {
			case strings.HasPrefix(n.Name, "Gpu"):
				gpu++
			case strings.HasPrefix(n.Name, "Photon"):
				photon++
			}
		}
	}
	gpuMetrics := false
	for i := range stages {
		gpuMetrics = gpuMetrics || stages[i].GPU.Has
	}
	var out Plugins
	if strings.Contains(props["spark.plugins"], "com.nvidia.spark.SQLPlugin") && props["spark.rapids.sql.enabled"] != "false" ||
		gpu > 0 || gpuMetrics {
		out.RAPIDS = &Plugin{Name: PluginRAPIDS, Version: rapidsVersion(a, props), PlanNodes: gpu, AllNodes: all,
			TaskSlots: gpuSlots(props)}
	}
	if props["spark.databricks.photon.enabled"] == "true" || photon > 0 {
		v := props["spark.databricks.clusterUsageTags.sparkVersion"]
		if v != "" {
			v = "Databricks Runtime " + v
		}
		out.Photon = &Plugin{Name: PluginPhoton, Version: v, PlanNodes: photon, AllNodes: all}
	}
	return out
}

// rapidsVersion reads the plugin's version from its jar's name.
func rapidsVersion(a *model.Attempt, props map[string]string) string {
	for _, s := range []string{props["spark.jars"], props["spark.driver.extraClassPath"], props["spark.executor.extraClassPath"]} {
		if m := rapidsJar.FindStringSubmatch(s); m != nil {
			return m[1]
		}
	}
	for _, e := range a.Env.ClasspathEntries {
		if m := rapidsJar.FindStringSubmatch(e[0]); m != nil {
			return m[1]
		}
	}
	return ""
}

// gpuSlots is how many tasks an executor runs at once as its GPUs allow:
// spark.executor.resource.gpu.amount ÷ spark.task.resource.gpu.amount; 0
// when either is unset.
func gpuSlots(props map[string]string) int {
	exec, err1 := strconv.ParseFloat(strings.TrimSpace(props["spark.executor.resource.gpu.amount"]), 64)
	task, err2 := strconv.ParseFloat(strings.TrimSpace(props["spark.task.resource.gpu.amount"]), 64)
	if err1 != nil || err2 != nil || exec <= 0 || task <= 0 {
		return 0
	}
	return int(exec/task + 1e-9)
}

package diagnose_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// This file builds the plugin fixtures under testdata/plugins from the
// real-Spark scenario logs (there is no GPU, and no Databricks, here): it
// adds what the RAPIDS Accelerator and Photon document writing to an
// event log and leaves the rest as real Spark wrote it. Refresh with
//
//	go test ./internal/diagnose -run TestPluginFixtures -update
//
// testdata/plugins/README.md says what each fixture changes.

const pluginsDir = "../../testdata/plugins"

// pluginFixtures are the fixtures: the scenario log each starts from and
// how it changes it.
var pluginFixtures = []struct {
	name, from string
	edit       func(ev map[string]any) []map[string]any
}{
	{"rapids-spill", "spill/spark-3.5.9", rapidsSpill},
	{"rapids-oom", "python-exception/spark-3.5.9", rapidsOOM},
	{"photon-spill", "spill/spark-4.3.0", photonSpill},
}

// TestPluginFixtures rebuilds the fixtures with -update; without it, it
// checks they are what the scenario logs and the edits make.
func TestPluginFixtures(t *testing.T) {
	for _, f := range pluginFixtures {
		t.Run(f.name, func(t *testing.T) {
			src, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", f.from, "app-*"))
			if len(src) != 1 {
				t.Fatalf("%s: want one scenario log, got %v", f.from, src)
			}
			got := editLog(t, src[0], f.edit)
			dst := filepath.Join(pluginsDir, f.name, filepath.Base(src[0]))
			if *update {
				writeZstd(t, dst, got)
				return
			}
			if want := readZstd(t, dst); !bytes.Equal(got, want) {
				t.Errorf("%s differs from what %s and the edits give; rerun with -update", dst, src[0])
			}
		})
	}
}

// editLog applies edit to each event of a log; edit returns the events
// that replace it (none drops it).
func editLog(t *testing.T, path string, edit func(map[string]any) []map[string]any) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(readZstd(t, path)))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		var ev map[string]any
		if err := d.Decode(&ev); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, e := range edit(ev) {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(b)
			out.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func readZstd(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := r.DecodeAll(b, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

func writeZstd(t *testing.T, path string, data []byte) {
	w, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, w.EncodeAll(data, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rapidsEnv adds the plugin's configuration (spark.plugins, its jar, one
// GPU per executor shared by two tasks) and, after it, the build-info
// event the plugin posts (24.06+).
func rapidsEnv(ev map[string]any) []map[string]any {
	if ev["Event"] != "SparkListenerEnvironmentUpdate" {
		return nil
	}
	jar := "/opt/rapids/rapids-4-spark_2.12-24.06.0.jar"
	props := ev["Spark Properties"].(map[string]any)
	props["spark.plugins"] = "com.nvidia.spark.SQLPlugin"
	props["spark.rapids.sql.enabled"] = "true"
	props["spark.rapids.sql.concurrentGpuTasks"] = "2"
	props["spark.executor.resource.gpu.amount"] = "1"
	props["spark.task.resource.gpu.amount"] = "0.5"
	props["spark.jars"] = "file://" + jar
	ev["Classpath Entries"].(map[string]any)[jar] = "Added By User"
	info := map[string]any{"Event": "com.nvidia.spark.rapids.SparkRapidsBuildInfoEvent",
		"sparkRapidsBuildInfo":    map[string]any{"version": "24.06.0", "branch": "HEAD", "revision": "0000000"},
		"sparkRapidsJniBuildInfo": map[string]any{"version": "24.06.0"}, "cudfBuildInfo": map[string]any{"version": "24.06.0"},
		"sparkRapidsPrivateBuildInfo": map[string]any{}}
	return []map[string]any{ev, info}
}

// renamePlan renames the plan nodes of the SQL events by rename (the
// node's name and the start of its simpleString).
func renamePlan(ev map[string]any, rename func(string) string) {
	name, _ := ev["Event"].(string)
	if !strings.HasSuffix(name, "SparkListenerSQLExecutionStart") && !strings.HasSuffix(name, "SparkListenerSQLAdaptiveExecutionUpdate") {
		return
	}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		old, _ := n["nodeName"].(string)
		if nw := rename(old); nw != old {
			n["nodeName"] = nw
			if s, ok := n["simpleString"].(string); ok && strings.HasPrefix(s, old) {
				n["simpleString"] = nw + strings.TrimPrefix(s, old)
			}
		}
		children, _ := n["children"].([]any)
		for _, c := range children {
			if m, ok := c.(map[string]any); ok {
				walk(m)
			}
		}
	}
	if p, ok := ev["sparkPlanInfo"].(map[string]any); ok {
		walk(p)
	}
}

// gpuNode is a CPU node's name on the GPU: the plugin replaces each
// operator it runs by its Gpu… twin (GpuSort, GpuProject, GpuRange;
// shuffles are GpuColumnarExchange); wrappers and stages stay.
func gpuNode(name string) string {
	switch {
	case name == "Exchange":
		return "GpuColumnarExchange"
	case strings.HasPrefix(name, "WholeStageCodegen"), strings.HasPrefix(name, "AdaptiveSparkPlan"),
		strings.HasSuffix(name, "QueryStage"), name == "InputAdapter", strings.HasPrefix(name, "Execute"),
		strings.HasPrefix(name, "Gpu"), strings.Contains(name, " "):
		return name
	}
	return "Gpu" + name
}

// rapidsSpill: the spill scenario on the GPU — its "memory spilled" is
// device memory moved to host memory, nothing reaches disk, and the
// stages carry the plugin's task accumulators (GpuTaskMetrics): a third
// of the run time spilling, a tenth waiting for the GPU, two retries.
func rapidsSpill(ev map[string]any) []map[string]any {
	if out := rapidsEnv(ev); out != nil {
		return out
	}
	renamePlan(ev, gpuNode)
	zeroDiskSpill(ev)
	if ev["Event"] == "SparkListenerStageCompleted" {
		info := ev["Stage Info"].(map[string]any)
		accs, _ := info["Accumulables"].([]any)
		if accValue(accs, "internal.metrics.memoryBytesSpilled") > 0 {
			run := accValue(accs, "internal.metrics.executorRunTime")
			id := 900000 + 100*num(info["Stage ID"])
			for i, a := range [][2]any{{"gpuSpillDevice2HostTime", nanoTime(run / 3)}, {"gpuSemaphoreWait", nanoTime(run / 10)},
				{"gpuRetryCount", "2"}, {"gpuSplitAndRetryCount", "0"}} {
				accs = append(accs, map[string]any{"ID": id + int64(i), "Name": a[0], "Value": a[1],
					"Internal": false, "Count Failed Values": true})
			}
			info["Accumulables"] = accs
		}
	}
	return []map[string]any{ev}
}

// zeroDiskSpill sets what the tasks and stages say they spilled to disk
// to zero: the GPU's device→host spill writes nothing there.
func zeroDiskSpill(ev map[string]any) {
	if m, ok := ev["Task Metrics"].(map[string]any); ok {
		if _, has := m["Disk Bytes Spilled"]; has {
			m["Disk Bytes Spilled"] = 0
		}
	}
	for _, k := range []string{"Task Info", "Stage Info"} {
		info, _ := ev[k].(map[string]any)
		accs, _ := info["Accumulables"].([]any)
		for _, a := range accs {
			if m, ok := a.(map[string]any); ok && m["Name"] == "internal.metrics.diskBytesSpilled" {
				for _, f := range []string{"Update", "Value"} {
					if _, has := m[f]; has {
						m[f] = 0
					}
				}
			}
		}
	}
}

// gpuOOM is what a task that ran out of GPU memory after split-and-retry
// reports: the plugin's exception over its own, cuDF's and Spark's frames
// (no user frame: the user's line is the stage's call site).
const gpuOOM = "com.nvidia.spark.rapids.jni.GpuSplitAndRetryOOM: GPU OutOfMemory: could not split inputs and retry\n" +
	"\tat com.nvidia.spark.rapids.RmmRapidsRetryIterator$AutoCloseableAttemptSpliterator.split(RmmRapidsRetryIterator.scala:458)\n" +
	"\tat com.nvidia.spark.rapids.RmmRapidsRetryIterator$RmmRapidsRetryIterator.next(RmmRapidsRetryIterator.scala:588)\n" +
	"\tat ai.rapids.cudf.Table.concatenate(Table.java:1640)\n" +
	"\tat com.nvidia.spark.rapids.GpuHashAggregateIterator.next(GpuAggregateExec.scala:312)\n" +
	"\tat org.apache.spark.scheduler.ResultTask.runTask(ResultTask.scala:93)\n" +
	"\tat org.apache.spark.executor.Executor$TaskRunner.run(Executor.scala:620)\n"

// lostTask finds where the job's and stage's abort message names the
// failure: "... (TID 6) (127.0.0.3 executor 1): <the error>".
var lostTask = regexp.MustCompile(`(?s)^(.*?\(TID \d+\) \([^)]*\)): .*$`)

// rapidsOOM: the python-exception scenario's failing task runs out of GPU
// memory instead, on every attempt, and the job fails with it.
func rapidsOOM(ev map[string]any) []map[string]any {
	if out := rapidsEnv(ev); out != nil {
		return out
	}
	if r, ok := ev["Task End Reason"].(map[string]any); ok && r["Reason"] == "ExceptionFailure" {
		first, _, _ := strings.Cut(gpuOOM, "\n")
		class, desc, _ := strings.Cut(first, ": ")
		r["Class Name"], r["Description"], r["Full Stack Trace"] = class, desc, gpuOOM
		r["Stack Trace"] = []any{}
	}
	abort := func(m map[string]any, key string) {
		if s, ok := m[key].(string); ok {
			m[key] = lostTask.ReplaceAllString(s, "${1}: "+strings.ReplaceAll(gpuOOM, "$", "$$"))
		}
	}
	if info, ok := ev["Stage Info"].(map[string]any); ok {
		abort(info, "Failure Reason")
	}
	if res, ok := ev["Job Result"].(map[string]any); ok {
		if exc, ok := res["Exception"].(map[string]any); ok {
			abort(exc, "Message")
		}
	}
	return []map[string]any{ev}
}

// photonNode is a Spark node's name under Photon (as Databricks' plans
// name them: PhotonScan, PhotonProject, PhotonGroupingAgg, PhotonSort,
// PhotonShuffleExchangeSink); what Photon does not run keeps its name.
func photonNode(name string) string {
	switch {
	case name == "Exchange":
		return "PhotonShuffleExchangeSink"
	case name == "HashAggregate":
		return "PhotonGroupingAgg"
	case strings.HasPrefix(name, "WholeStageCodegen"):
		return "PhotonResultStage"
	case name == "Range", name == "Project", name == "Sort", name == "Filter":
		return "Photon" + name
	}
	return name
}

// photonSpill: the spill scenario (Spark 4.3.0) on a Databricks Photon
// cluster: Photon's configuration and runtime version, its plan nodes.
// The task metrics stay the JVM's: what Photon would not report in them.
func photonSpill(ev map[string]any) []map[string]any {
	if ev["Event"] == "SparkListenerEnvironmentUpdate" {
		props := ev["Spark Properties"].(map[string]any)
		props["spark.databricks.photon.enabled"] = "true"
		props["spark.databricks.clusterUsageTags.sparkVersion"] = "13.3.x-photon-scala2.12"
	}
	renamePlan(ev, photonNode)
	return []map[string]any{ev}
}

// accValue is the value of the accumulable named name, 0 when absent.
func accValue(accs []any, name string) int64 {
	for _, a := range accs {
		if m, ok := a.(map[string]any); ok && m["Name"] == name {
			return num(m["Value"])
		}
	}
	return 0
}

func num(v any) int64 {
	var n int64
	switch x := v.(type) {
	case json.Number:
		n, _ = x.Int64()
	case string:
		fmt.Sscan(x, &n)
	case int64:
		n = x
	}
	return n
}

// nanoTime writes ms as the plugin's NanoTime prints ("00:01:02.500").
func nanoTime(ms int64) string {
	return fmt.Sprintf("%02d:%02d:%06.3f", ms/3_600_000, ms/60_000%60, float64(ms%60_000)/1000)
}

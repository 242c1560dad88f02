package diagnose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// pluginPass replays a plugin fixture (or the scenario log it was built
// from) and runs every rule on it.
func pluginPass(t *testing.T, glob string) (*diagnose.Pass, []diagnose.Finding) {
	t.Helper()
	paths, _ := filepath.Glob(glob)
	if len(paths) != 1 {
		t.Fatalf("%s: want one log, got %v", glob, paths)
	}
	logs, err := eventlog.Open(context.Background(), paths[0], eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := replay.Log(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)}
	return p, diagnose.Run(p, diagnose.All)
}

func findingsOf(fs []diagnose.Finding, rule string) []diagnose.Finding {
	var out []diagnose.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// The spill scenario's log with the RAPIDS Accelerator's configuration,
// node names and accumulators: its "memory spilled" is GPU memory moved to
// host memory. spill, which fires on the same log without the plugin,
// must not; gpu-spill must, with the time the plugin measured.
func TestRAPIDSSpill(t *testing.T) {
	_, cpu := pluginPass(t, "../../testdata/scenarios/spill/spark-3.5.9/app-*")
	if len(findingsOf(cpu, "spill")) == 0 || len(findingsOf(cpu, "gpu-spill")) != 0 {
		t.Fatalf("the CPU log: want spill and no gpu-spill:%s", dump(cpu))
	}
	p, fs := pluginPass(t, pluginsDir+"/rapids-spill/app-*")
	r := p.Result.Plugins.RAPIDS
	if r == nil || r.Version != "24.06.0" || r.PlanNodes == 0 || r.TaskSlots != 2 {
		t.Fatalf("plugin = %+v, want RAPIDS 24.06.0 with Gpu nodes and 2 task slots", r)
	}
	if got := findingsOf(fs, "spill"); len(got) != 0 {
		t.Errorf("spill fired on GPU memory:%s", dump(got))
	}
	g := findingsOf(fs, "gpu-spill")
	if len(g) != 1 || g[0].Severity < diagnose.Warning || g[0].Evidence["diskSpilledBytes"] != int64(0) ||
		g[0].Evidence["spillToHostMs"].(int64) <= 0 || g[0].Recipe != "troubleshoot/gpu-memory.md" {
		t.Errorf("gpu-spill: got%s, want one warning with the spill time and nothing on disk", dump(g))
	}
	if got := findingsOf(fs, "idle-executors"); len(got) != 0 {
		t.Errorf("idle-executors fired:%s", dump(got))
	}
}

// The python-exception scenario's failing task runs out of GPU memory
// instead: the GPU OOM is the root cause, critical, with GPU advice, and
// the user's line is the stage's call site, not a RAPIDS frame.
func TestRAPIDSOOMRootCause(t *testing.T) {
	p, fs := pluginPass(t, pluginsDir+"/rapids-oom/app-*")
	o := p.Result.Failures.Outcome
	if o.Status != analyze.OutcomeFailed || o.Cause < 0 {
		t.Fatalf("outcome = %+v, want failed with a cause", o)
	}
	c := p.Result.Failures.Causes[o.Cause]
	if c.Error.Class != "com.nvidia.spark.rapids.jni.GpuSplitAndRetryOOM" ||
		filepath.Base(c.Error.Frame.File) != "workload.py" || c.Error.Frame.Line != 16 {
		t.Errorf("root cause %s at %+v, want GpuSplitAndRetryOOM at workload.py:16 (the call site)", c.Error.Class, c.Error.Frame)
	}
	tf := findingsOf(fs, "task-failures")
	if len(tf) != 1 || tf[0].Severity != diagnose.Critical || tf[0].Evidence["rootCause"] != true ||
		!strings.HasPrefix(tf[0].Recipe, "troubleshoot/gpu-memory.md") || strings.Contains(fmt.Sprint(tf[0].Evidence["userFrame"]), "nvidia") {
		t.Errorf("task-failures: got%s, want one critical root cause with the GPU recipe", dump(tf))
	}
	if fs[0].Rule != "task-failures" {
		t.Errorf("first finding %s, want the root cause first:%s", fs[0].Rule, dump(fs))
	}
}

// The spill scenario (Spark 4.3.0) as a Databricks Photon app: Photon is
// recognised with its runtime, the spill finding says the JVM's metrics
// miss Photon's work, and the SQL view shows the Photon nodes with their
// metrics.
func TestPhoton(t *testing.T) {
	p, fs := pluginPass(t, pluginsDir+"/photon-spill/app-*")
	ph := p.Result.Plugins.Photon
	if ph == nil || ph.Version != "Databricks Runtime 13.3.x-photon-scala2.12" || ph.PlanNodes == 0 {
		t.Fatalf("photon = %+v", ph)
	}
	sp := findingsOf(fs, "spill")
	if len(sp) != 1 || !strings.Contains(sp[0].Detail, "Photon ran") || sp[0].Evidence["jvmMetricsIncomplete"] != true {
		t.Errorf("spill: got%s, want the Photon caveat", dump(sp))
	}
	api := historyapi.New([]*model.App{{ID: p.Attempt.AppID, Attempts: []*model.Attempt{p.Attempt}}})
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/applications/"+p.Attempt.AppID+"/sql?details=true", nil))
	var execs []struct {
		Nodes []struct {
			NodeName string `json:"nodeName"`
			Metrics  []struct {
				Name, Value string
			} `json:"metrics"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &execs); err != nil {
		t.Fatalf("%v: %s", err, rec.Body.String())
	}
	photon, withMetrics := 0, 0
	for _, x := range execs {
		for _, n := range x.Nodes {
			if strings.HasPrefix(n.NodeName, "Photon") {
				photon++
				if len(n.Metrics) > 0 {
					withMetrics++
				}
			}
		}
	}
	if photon == 0 || withMetrics == 0 {
		t.Errorf("SQL view: %d Photon nodes, %d with metrics; want both", photon, withMetrics)
	}
}

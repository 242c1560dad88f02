package diagnose

import (
	"fmt"
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

var pythonBudget = Threshold{Metric: "peak Python RSS ÷ Python budget", Warning: 0.80, Critical: 1.00, Gate: "process-tree metrics present",
	Source: "ours: crossing the budget is the 137/OOMKilled case"}

var pythonContainer = Threshold{Metric: "JVM + Python + other RSS ÷ container", Critical: 0.95, Source: "ours"}

// PythonMemory reports PySpark workers using more memory than the container leaves them.
var PythonMemory = &Rule{
	ID:     "python-memory",
	Title:  "Python workers near their memory budget",
	Recipe: "troubleshoot/python-worker-memory.md",
	Doc: "Peak ProcessTreePythonRSSMemory against the Python budget: spark.executor.pyspark.memory when set, " +
		"else the memory overhead that all non-JVM memory is charged to.",
	Thresholds: []Threshold{pythonBudget, pythonContainer},
	Run:        runPythonMemory,
}

func runPythonMemory(p *Pass) []Finding {
	c := p.Result.Config
	budget := c.PySparkMemoryBytes
	if budget == 0 {
		budget = c.ExecutorOverheadBytes
	}
	var out []Finding
	for i := range p.Result.Executors {
		e := &p.Result.Executors[i]
		if e.ID == "driver" || e.PeakPythonRSSBytes <= 0 {
			continue
		}
		ratio := analyze.Ratio(e.PeakPythonRSSBytes, budget)
		sev := pythonBudget.Level(ratio)
		total := e.PeakJVMRSSBytes + e.PeakPythonRSSBytes + e.PeakOtherRSSBytes
		totalRatio := analyze.Ratio(total, c.ContainerBytes())
		if pythonContainer.Level(totalRatio) == Critical {
			sev = Critical
		}
		if sev == None {
			continue
		}
		out = append(out, Finding{Severity: sev, ExecutorIDs: []string{e.ID},
			Detail: fmt.Sprintf("Python workers on executor %s peaked at %s of a %s budget (%.0f%%); the whole process tree at %s of a %s container.",
				e.ID, units.Bytes(e.PeakPythonRSSBytes), units.Bytes(budget), 100*ratio, units.Bytes(total), units.Bytes(c.ContainerBytes())),
			Evidence: map[string]any{"executorId": e.ID, "pythonRssBytes": e.PeakPythonRSSBytes, "pythonBudgetBytes": budget,
				"ratio": round(ratio), "processTreeRssBytes": total, "containerLimitBytes": c.ContainerBytes(),
				"containerRatio": round(totalRatio)}})
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Evidence["ratio"].(float64) > out[j].Evidence["ratio"].(float64)
	})
	return foldExecutors(out, "ran Python workers near their memory budget")
}

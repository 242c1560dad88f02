package reportv1

import "github.com/sparkdx/sparkdx/internal/analyze"

// Headline is the report's key numbers (analyze.Headline, computed once
// and shown as they are by every view), each beside its denominator:
// coreTimeUsedRatio is taskTimeMs ÷ executorCoreTimeMs, gcRatio
// gcTimeMs ÷ executorRunTimeMs, cpuRatio cpuTimeMs ÷ executorRunTimeMs. A
// number the log does not give is null.
type Headline struct {
	DurationMs         int64    `json:"durationMs"`
	TaskTimeMs         int64    `json:"taskTimeMs"`
	ExecutorCoreTimeMs int64    `json:"executorCoreTimeMs"`
	CoreTimeUsedRatio  float64  `json:"coreTimeUsedRatio"`
	GCTimeMs           int64    `json:"gcTimeMs"`
	ExecutorRunTimeMs  int64    `json:"executorRunTimeMs"`
	GCRatio            float64  `json:"gcRatio"`
	CPUTimeMs          *int64   `json:"cpuTimeMs"`
	CPURatio           *float64 `json:"cpuRatio"`
	Tasks              Tasks    `json:"tasks"`
	MaxExecutors       int      `json:"maxExecutors"`
	MaxCores           int      `json:"maxCores"`
	ExitCode           *int     `json:"exitCode"`
}

// Tasks counts task attempts (analyze.TaskCounts): launched = finished +
// unfinished, finished = succeeded + failed + killed.
type Tasks struct {
	Launched    int `json:"launched"`
	Finished    int `json:"finished"`
	Succeeded   int `json:"succeeded"`
	Failed      int `json:"failed"`
	Killed      int `json:"killed"`
	Unfinished  int `json:"unfinished"`
	Speculative int `json:"speculative"`
}

func headline(h analyze.Headline) *Headline {
	out := &Headline{DurationMs: h.DurationMs, TaskTimeMs: h.TaskTimeMs, ExecutorCoreTimeMs: h.CoreTimeMs,
		CoreTimeUsedRatio: h.CoreTimeUsed, GCTimeMs: h.GCTimeMs, ExecutorRunTimeMs: h.RunTimeMs, GCRatio: h.GCShare,
		Tasks: Tasks(h.Tasks), MaxExecutors: h.MaxExecutors, MaxCores: h.MaxCores, ExitCode: h.ExitCode}
	if h.CPUTimeMs > 0 {
		cpu, share := h.CPUTimeMs, h.CPUShare
		out.CPUTimeMs, out.CPURatio = &cpu, &share
	}
	return out
}

package analyze

import "github.com/sparkdx/sparkdx/internal/model"

// CoreTimeMs is the executor core time the application held: Σ cores ×
// lifetime over its executors (the driver's in local mode, where it runs
// the tasks), or the most cores seen × the app's duration when the log
// names no executor's cores (Spark 1.x local mode). It is the denominator
// of every "share of core time".
func (r *Result) CoreTimeMs() int64 {
	if ms := r.executorCoreTimeMs(); ms > 0 {
		return ms
	}
	return model.SatMul(int64(r.CriticalPath.MaxCores), max(r.DurationMs, 0))
}

func (r *Result) executorCoreTimeMs() int64 {
	local := true
	for _, e := range r.Executors {
		if e.ID != "driver" {
			local = false
		}
	}
	var ms int64
	for _, e := range r.Executors {
		if (e.ID == "driver") != local || e.Cores <= 0 {
			continue
		}
		ms = model.SatAdd(ms, model.SatMul(e.LifetimeMs, int64(e.Cores)))
	}
	return ms
}

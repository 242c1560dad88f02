package analyze

// CoreTimeMs is the executor core time the application held: Σ cores ×
// lifetime over its executors (the driver's in local mode, where it runs
// the tasks). It is the denominator of every "share of core time".
func (r *Result) CoreTimeMs() int64 {
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
		ms += e.LifetimeMs * int64(e.Cores)
	}
	return ms
}

package analyze

import "github.com/sparkdx/sparkdx/internal/model"

// markWrites sets Stage.IsWrite: a stage writes when its tasks report
// output (bytes or records written). A write command whose stages report
// none (an empty result, a writer that keeps no output metrics) still
// writes in the result stage of its last job: its map stages shuffle,
// and the jobs before the last are the broadcasts, subqueries and
// adaptive query stages the write reads from — counting those as output
// time called a broadcast's scan a slow write. writeSQL tells which SQL
// executions run a write command; stats and stages are in the same
// order.
func markWrites(stats []Stage, stages []*model.StageAttempt, writeSQL map[int64]bool) {
	reported := map[int64]bool{} // SQL execution id → some stage reports output
	lastJob := map[int64]int{}   // SQL execution id → its highest job id
	for i, st := range stats {
		if st.OutputBytes > 0 || st.OutputRecords > 0 {
			stats[i].IsWrite = true
			reported[st.SQLExecutionID] = true
		}
		if st.SQLExecutionID < 0 {
			continue
		}
		for _, id := range stages[i].JobIDs {
			if last, ok := lastJob[st.SQLExecutionID]; !ok || id > last {
				lastJob[st.SQLExecutionID] = id
			}
		}
	}
	for i, st := range stats {
		id := st.SQLExecutionID
		if st.IsWrite || id < 0 || !writeSQL[id] || reported[id] || st.ShuffleWriteBytes != 0 || st.Attempts == 0 {
			continue
		}
		for _, job := range stages[i].JobIDs {
			if job == lastJob[id] {
				stats[i].IsWrite = true
			}
		}
	}
}

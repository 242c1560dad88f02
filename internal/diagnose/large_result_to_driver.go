package diagnose

import (
	"fmt"
	"strings"

	"github.com/sparkdx/sparkdx/internal/units"
)

var resultShare = Threshold{Metric: "Σ task Result Size per job ÷ spark.driver.maxResultSize", Warning: 0.50, Critical: 0.80,
	Gate: "the abort message is critical", Source: "ours (Spark aborts the job at 100 %)"}

var broadcastBytes = Threshold{Metric: "broadcast exchange data size (bytes)", Warning: float64(gib), Critical: float64(8 * gib),
	Gate: "cost: the broadcast's time to collect and build (wall: the query waits for it) ≥ 5 % of the app and ≥ 1 s, " +
		"else info; ≥ 25 % for critical (the maxResultSize arm is a risk of abort: not gated)",
	Source: "DataFlint BroadcastTooLargeAlert (1 GiB); Spark MAX_BROADCAST_TABLE_BYTES (8 GiB)"}

// LargeResultToDriver reports actions and broadcasts that pull large data into the driver.
var LargeResultToDriver = &Rule{
	ID:         "large-result-to-driver",
	Title:      "Large result or broadcast through the driver",
	Recipe:     "troubleshoot/long-running-driver.md#large-result-to-driver",
	Doc:        "collect/toPandas/take results near spark.driver.maxResultSize, or large broadcast tables built on the driver.",
	Thresholds: []Threshold{resultShare, broadcastBytes},
	Run:        runLargeResultToDriver,
}

func runLargeResultToDriver(p *Pass) []Finding {
	r := p.Result
	limit := r.Config.MaxResultSizeBytes
	var out []Finding
	for _, j := range r.Jobs {
		var aborted []int
		for _, s := range r.Stages {
			if strings.Contains(s.FailureReason, "bigger than spark.driver.maxResultSize") && containsInt(s.JobIDs, j.ID) {
				aborted = append(aborted, s.StageID)
			}
		}
		ratio := 0.0
		if limit > 0 {
			ratio = float64(j.ResultBytes) / float64(limit)
		}
		sev := resultShare.Level(ratio)
		if len(aborted) > 0 {
			sev = Critical
		}
		if sev == None {
			continue
		}
		out = append(out, Finding{Severity: sev, StageIDs: max1(aborted, j.StageIDs),
			Detail: fmt.Sprintf("Job %d returned %s of task results to the driver (spark.driver.maxResultSize %s, %.0f%%).",
				j.ID, units.Bytes(j.ResultBytes), units.Bytes(limit), 100*ratio),
			Evidence: map[string]any{"jobId": j.ID, "resultBytes": j.ResultBytes, "maxResultSize": limit,
				"ratio": round(ratio), "aborted": len(aborted) > 0}})
	}
	for _, x := range r.SQL {
		for _, n := range x.Nodes {
			if !strings.Contains(n.Name, "BroadcastExchange") {
				continue
			}
			size := n.Metrics["data size"]
			sev := broadcastBytes.Level(float64(size))
			if sev == None {
				continue
			}
			cost := p.cost(n.Metrics["time to collect"]+n.Metrics["time to build"], 0,
				"wall: the broadcast's time to collect and to build, which the query waited for")
			out = append(out, Finding{Severity: gate(sev, cost), StageIDs: sqlStages(r, x.ID), Cost: cost,
				Detail: fmt.Sprintf("SQL query %d broadcast %s (%s) from the driver.", x.ID, units.Bytes(size), n.Name),
				Evidence: map[string]any{"sqlId": x.ID, "broadcastBytes": size,
					"timeToCollectMs": n.Metrics["time to collect"], "timeToBuildMs": n.Metrics["time to build"]}})
		}
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// max1 returns a when it is not empty, else b.
func max1(a, b []int) []int {
	if len(a) > 0 {
		return a
	}
	return b
}

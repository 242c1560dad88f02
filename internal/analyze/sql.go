package analyze

import (
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// MetricOutputRows is the SQL metric every row-producing node carries.
const MetricOutputRows = "number of output rows"

// accumulatorValues collects the final value of every SQL metric from the
// stages' accumulables (the value when the stage completed: Spark sums the
// task updates into it); a metric several stages update keeps the largest.
func accumulatorValues(a *model.Attempt) map[int64]int64 {
	vals := map[int64]int64{}
	for _, s := range a.Stages {
		for i := range s.Accumulables {
			acc := &s.Accumulables[i]
			if !acc.SQL {
				continue
			}
			v, err := strconv.ParseInt(acc.Value, 10, 64)
			if err != nil {
				continue
			}
			if old, ok := vals[acc.ID]; !ok || v > old {
				vals[acc.ID] = v
			}
		}
	}
	return vals
}

// sqlStats flattens each execution's plan with the metric values found.
func sqlStats(a *model.Attempt, vals map[int64]int64) []SQLExecution {
	out := make([]SQLExecution, 0, len(a.SQL))
	for _, x := range a.SQL {
		e := SQLExecution{ID: x.ID, Description: x.Description, StartTime: x.StartTime, EndTime: x.EndTime,
			JobIDs: x.SparkJobOrder()}
		if x.Plan != nil {
			flatten(x.Plan, &e.Nodes, vals, x.DriverUpdates)
		}
		micro := isMicroBatch(x.Description)
		for _, n := range e.Nodes {
			// A streaming micro-batch hands its rows to the sink in the
			// tasks that compute them (WriteToDataSourceV2 of a
			// MicroBatchWrite): that is the query's work, not an output
			// write. A file sink's stages still write by their bytes.
			if IsWriteCommand(n.Name) && !(micro && n.Name == "WriteToDataSourceV2") {
				e.IsWrite = true
			}
		}
		out = append(out, e)
	}
	return out
}

func flatten(p *model.SQLPlanNode, nodes *[]SQLNode, vals, driver map[int64]int64) int {
	id := len(*nodes)
	*nodes = append(*nodes, SQLNode{ID: id, Name: p.NodeName, Rows: -1})
	n := SQLNode{ID: id, Name: p.NodeName, Rows: -1}
	for _, m := range p.Metrics {
		v, ok := driver[m.AccumulatorID]
		if !ok {
			v, ok = vals[m.AccumulatorID]
		}
		if !ok {
			continue
		}
		switch m.MetricType {
		case "nsTiming":
			v /= 1e6
			n.TimeMs += v
		case "timing":
			n.TimeMs += v
		}
		if n.Metrics == nil {
			n.Metrics = map[string]int64{}
		}
		n.Metrics[m.Name] = v
		if m.Name == MetricOutputRows || m.Name == "output rows" { // the latter: RAPIDS GPU nodes
			n.Rows = v
		}
	}
	for _, c := range p.Children {
		n.Children = append(n.Children, flatten(c, nodes, vals, driver))
	}
	(*nodes)[id] = n
	return id
}

// isMicroBatch tells whether an SQL execution is a Structured Streaming
// micro-batch: MicroBatchExecution describes its jobs as
// "<name>\nid = <query id>\nrunId = <run id>\nbatch = <batch id>".
func isMicroBatch(description string) bool {
	return strings.Contains(description, "\nrunId = ") && strings.Contains(description, "\nbatch = ")
}

// IsWriteCommand tells whether a plan node writes output (a data-writing
// command or the WriteFiles node of Spark 3.4+).
func IsWriteCommand(name string) bool {
	for _, w := range []string{"InsertInto", "WriteFiles", "CreateDataSourceTableAsSelect", "CreateHiveTableAsSelect",
		"SaveIntoDataSourceCommand", "AppendData", "OverwriteByExpression", "OverwritePartitionsDynamic",
		"ReplaceData", "WriteToDataSourceV2", "WriteDelta", "MergeIntoCommand"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

package analyze

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// MetricOutputRows is the SQL metric every row-producing node carries.
const MetricOutputRows = "number of output rows"

// sqlAccums are the SQL metrics' values and the stages that updated them.
type sqlAccums struct {
	vals   map[int64]int64
	stages map[int64][]int // accumulator id → stage ids, in order
}

// accumulatorValues collects the final value of every SQL metric from the
// stages' accumulables (the value when the stage completed: Spark sums the
// task updates into it); a metric several stages update keeps the largest.
// The stages that updated a metric are the ones its plan node ran in.
func accumulatorValues(a *model.Attempt) sqlAccums {
	acc := sqlAccums{vals: map[int64]int64{}, stages: map[int64][]int{}}
	for _, s := range a.Stages {
		for i := range s.Accumulables {
			ac := &s.Accumulables[i]
			if !ac.SQL {
				continue
			}
			v, err := strconv.ParseInt(ac.Value, 10, 64)
			if err != nil {
				continue
			}
			if old, ok := acc.vals[ac.ID]; !ok || v > old {
				acc.vals[ac.ID] = v
			}
			if v > 0 {
				acc.stages[ac.ID] = appendOnce(acc.stages[ac.ID], s.StageID)
			}
		}
	}
	return acc
}

// sqlStats flattens each execution's plan with the metric values found.
func sqlStats(a *model.Attempt, vals sqlAccums) []SQLExecution {
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
			if IsWriteCommand(n.Name) && !(micro && n.Name == "WriteToDataSourceV2") && !noopWrite(n) {
				e.IsWrite = true
			}
		}
		out = append(out, e)
	}
	return out
}

// noopWrite tells a write to Spark's "noop" data source, which keeps
// nothing: benchmarks write to it to run a query whole, so its stages'
// time is the query's, not output's. Spark 4 names the node
// "OverwriteByExpression noop-table"; 3.5 names the NoopWrite class in
// the node's description.
func noopWrite(n SQLNode) bool {
	return strings.Contains(n.Name, "noop-table") || strings.Contains(n.Desc, ".datasources.noop.Noop")
}

func flatten(p *model.SQLPlanNode, nodes *[]SQLNode, vals sqlAccums, driver map[int64]int64) int {
	id := len(*nodes)
	*nodes = append(*nodes, SQLNode{ID: id, Name: p.NodeName, Rows: -1})
	n := SQLNode{ID: id, Name: p.NodeName, Desc: planDesc(p.SimpleString), Rows: -1}
	for _, m := range p.Metrics {
		for _, st := range vals.stages[m.AccumulatorID] {
			n.Stages = appendOnce(n.Stages, st)
		}
		v, ok := driver[m.AccumulatorID]
		if !ok {
			v, ok = vals.vals[m.AccumulatorID]
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
		if m.Name == MetricOutputRows || m.Name == "output rows" || m.Name == "num output rows" {
			n.Rows = v // the latter two: RAPIDS GPU nodes, Photon nodes
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

// exprID is the "#12L" Spark appends to an attribute's name in a plan.
var exprID = regexp.MustCompile(`#\d+L?\b`)

// planDesc is a node's one-line description (SparkPlanInfo.simpleString:
// "SortMergeJoin [k#1L], [k#5L], Inner"), without expression ids and at
// most 200 characters: the join keys and condition as a person reads them.
func planDesc(s string) string {
	s = exprID.ReplaceAllString(strings.TrimSpace(s), "")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

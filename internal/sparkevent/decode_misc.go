package sparkevent

import (
	"sort"
	"time"

	"github.com/valyala/fastjson"

	"github.com/sparkdx/sparkdx/internal/model"
)

func environment(v *fastjson.Value) Event {
	var e Environment
	env := &e.Env
	env.Set = true
	env.JavaHome = str(v, "JVM Information", "Java Home")
	env.JavaVersion = str(v, "JVM Information", "Java Version")
	env.ScalaVersion = str(v, "JVM Information", "Scala Version")
	env.SparkProperties = sortedPairs(v.Get("Spark Properties"))
	env.HadoopProperties = sortedPairs(v.Get("Hadoop Properties"))
	env.SystemProperties = sortedPairs(v.Get("System Properties"))
	env.MetricsProperties = sortedPairs(v.Get("Metrics Properties"))
	env.ClasspathEntries = sortedPairs(v.Get("Classpath Entries"))
	return e
}

// sortedPairs reads a properties object (or Spark 1.x list of pairs) sorted
// by key, as the History Server lists them.
func sortedPairs(v *fastjson.Value) [][2]string {
	var out [][2]string
	if v == nil {
		return out
	}
	if v.Type() == fastjson.TypeArray {
		for _, p := range v.GetArray() {
			if a := p.GetArray(); len(a) == 2 {
				out = append(out, [2]string{anyString(a[0]), anyString(a[1])})
			}
		}
	} else {
		out = pairs(v)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func resourceProfile(v *fastjson.Value) Event {
	e := ResourceProfile{Profile: model.ResourceProfile{ID: v.GetInt("Resource Profile Id")}}
	if o := v.GetObject("Executor Resource Requests"); o != nil {
		o.Visit(func(k []byte, x *fastjson.Value) {
			e.Profile.ExecutorResources = append(e.Profile.ExecutorResources, model.ExecutorResourceRequest{
				Name: str(x, "Resource Name"), Amount: x.GetInt64("Amount"),
				DiscoveryScript: str(x, "Discovery Script"), Vendor: str(x, "Vendor")})
		})
	}
	if o := v.GetObject("Task Resource Requests"); o != nil {
		o.Visit(func(k []byte, x *fastjson.Value) {
			e.Profile.TaskResources = append(e.Profile.TaskResources, model.TaskResourceRequest{
				Name: str(x, "Resource Name"), Amount: x.GetFloat64("Amount")})
		})
	}
	return e
}

func (d *Decoder) executorAdded(v *fastjson.Value) Event {
	info := v.Get("Executor Info")
	e := ExecutorAdded{ExecutorID: d.str(v, "Executor ID"), Time: v.GetInt64("Timestamp")}
	if info == nil {
		return e
	}
	e.Host = str(info, "Host")
	e.Cores = info.GetInt("Total Cores")
	e.Logs = pairs(info.Get("Log Urls"))
	e.Attributes = pairs(info.Get("Attributes"))
	// JsonProtocol writes "Resource Profile Id"; keep the older spelling too.
	e.ResourceProfileID = info.GetInt("Resource Profile Id")
	if info.Exists("Resource Profile Identifier") {
		e.ResourceProfileID = info.GetInt("Resource Profile Identifier")
	}
	if o := info.GetObject("Resources"); o != nil {
		o.Visit(func(k []byte, x *fastjson.Value) {
			r := model.ResourceInfo{Name: str(x, "name")}
			for _, a := range x.GetArray("addresses") {
				r.Addresses = append(r.Addresses, anyString(a))
			}
			e.Resources = append(e.Resources, r)
		})
	}
	return e
}

func (d *Decoder) exclusion(v *fastjson.Value, node, forStage, excluded bool) Event {
	e := Exclusion{Node: node, ForStage: forStage, Excluded: excluded, Time: v.GetInt64("time"),
		StageID: v.GetInt("stageId"), StageAttempt: v.GetInt("stageAttemptId")}
	if node {
		e.Host = str(v, "hostId")
	}
	e.ExecutorID = d.str(v, "executorId")
	return e
}

func miscProcess(v *fastjson.Value) Event {
	info := v.Get("info")
	e := MiscProcess{Time: v.GetInt64("time")}
	e.Process = model.MiscProcess{ID: str(v, "processId"), IsActive: true, AddTime: e.Time, RemoveTime: model.NoTime}
	if info != nil {
		e.Process.HostPort = str(info, "hostPort")
		e.Process.TotalCores = info.GetInt("cores")
		e.Process.Logs = pairs(info.Get("logUrlInfo"))
	}
	return e
}

func (d *Decoder) blockUpdated(v *fastjson.Value) Event {
	b := v.Get("Block Updated Info")
	if b == nil {
		return BlockUpdated{}
	}
	sl := b.Get("Storage Level")
	e := BlockUpdated{ExecutorID: d.str(b, "Block Manager ID", "Executor ID"), Host: d.str(b, "Block Manager ID", "Host"),
		Port: b.GetInt("Block Manager ID", "Port"), BlockID: str(b, "Block ID"),
		MemSize: b.GetInt64("Memory Size"), DiskSize: b.GetInt64("Disk Size")}
	if sl != nil {
		e.UseDisk, e.UseMemory = sl.GetBool("Use Disk"), sl.GetBool("Use Memory")
		e.UseOffHeap, e.Deserialized = sl.GetBool("Use Off Heap"), sl.GetBool("Deserialized")
		e.Replication = sl.GetInt("Replication")
	}
	return e
}

// planNode reads a SparkPlanInfo tree; depth guards hostile nesting.
func planNode(v *fastjson.Value, depth int) *model.SQLPlanNode {
	if v == nil || v.Type() != fastjson.TypeObject || depth > 512 {
		return nil
	}
	n := &model.SQLPlanNode{NodeName: str(v, "nodeName"), SimpleString: str(v, "simpleString")}
	for _, c := range v.GetArray("children") {
		if cn := planNode(c, depth+1); cn != nil {
			n.Children = append(n.Children, cn)
		}
	}
	for _, m := range v.GetArray("metrics") {
		n.Metrics = append(n.Metrics, model.SQLMetric{Name: str(m, "name"), AccumulatorID: m.GetInt64("accumulatorId"),
			MetricType: str(m, "metricType")})
	}
	return n
}

// queryObject finds the object a StreamingQueryListener event describes
// its query with: "progress" (2.1+), "queryStatus" (2.0.2), "queryInfo"
// (2.0.0-2.0.1), or the event itself (started/terminated since 2.1).
func queryObject(v *fastjson.Value) *fastjson.Value {
	for _, k := range []string{"progress", "queryStatus", "queryInfo"} {
		if x := v.Get(k); x != nil && x.Type() == fastjson.TypeObject {
			return x
		}
	}
	return v
}

// queryTime reads a query timestamp: an ISO string (2.1+) or epoch ms (2.0.2).
func queryTime(v *fastjson.Value) int64 {
	x := v.Get("timestamp")
	switch {
	case x == nil:
		return model.NoTime
	case x.Type() == fastjson.TypeNumber:
		return x.GetInt64()
	default:
		return isoTime(string(x.GetStringBytes()))
	}
}

func queryStarted(v *fastjson.Value) Event {
	q := queryObject(v)
	return QueryStarted{ID: anyString(q.Get("id")), RunID: str(q, "runId"), Name: anyString(q.Get("name")),
		Time: queryTime(q)}
}

func queryTerminated(v *fastjson.Value) Event {
	q := queryObject(v)
	return QueryTerminated{ID: anyString(q.Get("id")), RunID: str(q, "runId"), Exception: anyString(v.Get("exception"))}
}

func queryProgress(v *fastjson.Value) Event {
	p := queryObject(v)
	e := QueryProgress{ID: anyString(p.Get("id")), RunID: str(p, "runId"), Name: anyString(p.Get("name"))}
	e.Progress = model.StreamingProgress{BatchID: p.GetInt64("batchId"), Time: queryTime(p),
		NumInputRows: p.GetInt64("numInputRows"), BatchDurationMs: p.GetInt64("batchDuration"),
		InputRowsPerSecond: p.GetFloat64("inputRowsPerSecond"), ProcessedRowsPerSecond: p.GetFloat64("processedRowsPerSecond")}
	// Since 2.1 the totals are sums over the sources (NaN, written "NaN",
	// counts as 0 as on the streaming statistics page).
	if srcs := p.GetArray("sources"); len(srcs) > 0 {
		var rows int64
		var in, proc float64
		for _, src := range srcs {
			rows += src.GetInt64("numInputRows")
			in += src.GetFloat64("inputRowsPerSecond")
			proc += src.GetFloat64("processedRowsPerSecond")
		}
		e.Progress.NumInputRows, e.Progress.InputRowsPerSecond, e.Progress.ProcessedRowsPerSecond = rows, in, proc
	}
	if x := p.Get("inputRate"); x != nil { // 2.0.2
		e.Progress.InputRowsPerSecond = x.GetFloat64()
		e.Progress.ProcessedRowsPerSecond = p.GetFloat64("processingRate")
	}
	for _, op := range p.GetArray("stateOperators") {
		e.Progress.StateRows += op.GetInt64("numRowsTotal")
		e.Progress.StateMemoryBytes += op.GetInt64("memoryUsedBytes")
	}
	if o := p.GetObject("durationMs"); o != nil {
		e.Progress.DurationMs = map[string]int64{}
		o.Visit(func(k []byte, x *fastjson.Value) { e.Progress.DurationMs[string(k)] = x.GetInt64() })
	}
	return e
}

// isoTime parses a streaming timestamp ("2020-07-29T10:56:55.123Z").
func isoTime(s string) int64 {
	t, err := time.Parse("2006-01-02T15:04:05.000Z07:00", s)
	if err != nil {
		return model.NoTime
	}
	return t.UnixMilli()
}

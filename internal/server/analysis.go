package server

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/otlpin"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// Analysis is one attempt analysed the way serve does it: every diagnose
// rule, with the driver's agent samples when the store has them.
type Analysis struct {
	Result *analyze.Result
	Report *reportv1.Report
}

// Analyze analyses an ingest input with the agent samples st holds for
// the application's driver.
func Analyze(st *store.Store, in ingest.Input) Analysis {
	var agent *diagnose.AgentData
	if st != nil {
		// A store error only costs the agent-aware rules their data.
		if xs, err := st.ExecutorSamples(in.Attempt.AppID, "driver"); err == nil {
			agent = AgentData(xs)
		}
	}
	d := pipeline.Diagnose(in.Attempt, in.Result, in.Source(), agent)
	return Analysis{Result: d.Result, Report: d.Report}
}

// AnalyzeFunc is serve's ingest.AnalyzeFunc: ingest.ReportJSON's document,
// with agent-aware findings (driver-degradation) when agents sent samples.
func AnalyzeFunc(st *store.Store) ingest.AnalyzeFunc {
	return func(in ingest.Input) ([]byte, error) {
		return json.Marshal(Analyze(st, in).Report)
	}
}

// AgentData turns the driver's stored samples into what diagnose reads:
// one DriverSample per sample time, in time order; nil with fewer than two
// times. GC time is jvm.gc.duration (seconds, every collector); a full GC
// happened when jvm.gc.count{major} grew since the previous time; the old
// generation is jvm.memory.used{old} over jvm.memory.limit{old}; the
// classes held are jvm.class.count. A metric
// missing at a time keeps its previous value.
func AgentData(samples []store.Sample) *diagnose.AgentData {
	type point struct {
		gcSeconds, major, oldUsed, oldLimit, classes float64
		has                                          [5]bool
	}
	byTime := map[int64]*point{}
	for _, x := range samples {
		p := byTime[x.Time]
		if p == nil {
			p = &point{}
			byTime[x.Time] = p
		}
		switch x.Metric {
		case otlpin.MetricGCDuration:
			p.gcSeconds, p.has[0] = x.Value, true
		case otlpin.MetricMajorGCs:
			p.major, p.has[1] = x.Value, true
		case otlpin.MetricOldUsed:
			p.oldUsed, p.has[2] = x.Value, true
		case otlpin.MetricOldLimit:
			p.oldLimit, p.has[3] = x.Value, true
		case otlpin.MetricClasses:
			p.classes, p.has[4] = x.Value, true
		}
	}
	times := make([]int64, 0, len(byTime))
	for t, p := range byTime {
		if p.has != [5]bool{} {
			times = append(times, t)
		}
	}
	if len(times) < 2 {
		return nil
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	var prev point
	var seenMajor bool
	out := &diagnose.AgentData{Driver: make([]diagnose.DriverSample, 0, len(times))}
	for _, t := range times {
		p := *byTime[t]
		vals := [5]*float64{&p.gcSeconds, &p.major, &p.oldUsed, &p.oldLimit, &p.classes}
		prevVals := [5]float64{prev.gcSeconds, prev.major, prev.oldUsed, prev.oldLimit, prev.classes}
		for i, ok := range p.has {
			if !ok {
				*vals[i] = prevVals[i]
			}
		}
		full := p.has[1] && seenMajor && p.major > prev.major
		seenMajor = seenMajor || p.has[1]
		out.Driver = append(out.Driver, diagnose.DriverSample{Time: time.UnixMilli(t), GCTimeMs: int64(p.gcSeconds * 1000),
			FullGC: full, OldGenUsedBytes: int64(p.oldUsed), OldGenMaxBytes: int64(p.oldLimit), Classes: int64(p.classes)})
		prev = p
	}
	return out
}

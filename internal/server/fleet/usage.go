package fleet

import (
	"net/url"
	"sort"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/units"
)

// ProcessUsage is the largest CPU and RSS one process of a type reached
// over a run, from agent samples: for Python workers, one JVM's workers
// together (what one executor's container holds).
type ProcessUsage struct {
	Type  string `json:"type"` // driver | executor | python | launcher
	Label string `json:"label"`
	// Processes counts the processes (JVMs; for python, the JVMs with
	// workers) with samples.
	Processes int `json:"processes"`
	// MaxCPUCores is the largest CPU use between two samples, in cores
	// (CPU seconds over wall seconds); nil with fewer than two samples.
	MaxCPUCores *Peak `json:"maxCpuCores,omitempty"`
	MaxRSSBytes *Peak `json:"maxRssBytes,omitempty"`
}

// Peak is a largest value and where it was seen.
type Peak struct {
	Value      float64 `json:"value"`
	Time       int64   `json:"time"` // epoch ms (for CPU, the end of the interval)
	AppID      string  `json:"appId"`
	ExecutorID string  `json:"executorId"`
}

// processTypes are the process types of the per-run table and the agent
// series (as serve stores OTLP points) each is read from.
var processTypes = []struct {
	typ, label string
	rss        string
	cpu        []string // CPU-seconds counters, summed
	driver     *bool    // only the driver's samples (true), only executors' (false), or both
}{
	{"driver", "Driver JVM", "process.memory.usage", []string{"process.cpu.time{user}", "process.cpu.time{system}"}, ptr(true)},
	{"executor", "Executor JVMs", "process.memory.usage", []string{"process.cpu.time{user}", "process.cpu.time{system}"}, ptr(false)},
	{"python", "Python workers", "sparkdx.process.tree.memory.usage{python}",
		[]string{"sparkdx.process.tree.cpu.time{python,user}", "sparkdx.process.tree.cpu.time{python,system}"}, nil},
	{"launcher", "Python launcher", "sparkdx.process.launcher.memory.usage",
		[]string{"sparkdx.process.launcher.cpu.time{user}", "sparkdx.process.launcher.cpu.time{system}"}, ptr(true)},
}

func ptr[T any](v T) *T { return &v }

// processUsage computes the per-type peaks of samples (any applications'),
// in processTypes' order; types without samples are left out.
func processUsage(samples []store.Sample) []ProcessUsage {
	type proc struct{ app, exec string }
	type series struct {
		rss []store.Sample
		cpu map[int64]float64 // time → CPU seconds, modes summed
	}
	out := []ProcessUsage{}
	for _, pt := range processTypes {
		cpuMetric := map[string]bool{}
		for _, m := range pt.cpu {
			cpuMetric[m] = true
		}
		procs := map[proc]*series{}
		for _, x := range samples {
			if pt.driver != nil && (x.ExecutorID == "driver") != *pt.driver {
				continue
			}
			if x.Metric != pt.rss && !cpuMetric[x.Metric] {
				continue
			}
			k := proc{x.AppID, x.ExecutorID}
			sr := procs[k]
			if sr == nil {
				sr = &series{cpu: map[int64]float64{}}
				procs[k] = sr
			}
			if x.Metric == pt.rss {
				sr.rss = append(sr.rss, x)
			} else {
				sr.cpu[x.Time] += x.Value
			}
		}
		if len(procs) == 0 {
			continue
		}
		u := ProcessUsage{Type: pt.typ, Label: pt.label, Processes: len(procs)}
		for k, sr := range procs {
			for _, x := range sr.rss {
				u.MaxRSSBytes = higher(u.MaxRSSBytes, Peak{Value: x.Value, Time: x.Time, AppID: k.app, ExecutorID: k.exec})
			}
			times := make([]int64, 0, len(sr.cpu))
			for t := range sr.cpu {
				times = append(times, t)
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			for i := 1; i < len(times); i++ {
				dt := float64(times[i]-times[i-1]) / 1000
				dv := sr.cpu[times[i]] - sr.cpu[times[i-1]]
				if dv < 0 { // a worker exited (its CPU left the tree's sum), or the process restarted
					continue
				}
				u.MaxCPUCores = higher(u.MaxCPUCores, Peak{Value: dv / dt, Time: times[i], AppID: k.app, ExecutorID: k.exec})
			}
		}
		out = append(out, u)
	}
	return out
}

// higher keeps the larger peak, the earlier one (then the smaller app and
// executor id) on a tie, so the answer does not depend on map order.
func higher(cur *Peak, p Peak) *Peak {
	if cur == nil || p.Value > cur.Value || p.Value == cur.Value &&
		(p.Time < cur.Time || p.Time == cur.Time && p.AppID+"\x00"+p.ExecutorID < cur.AppID+"\x00"+cur.ExecutorID) {
		return &p
	}
	return cur
}

// AsBytes is the value as a size (RSS).
func (p Peak) AsBytes() string { return units.Bytes(int64(p.Value)) }

// AsCores is the value as cores (CPU).
func (p Peak) AsCores() string { return strconv.FormatFloat(p.Value, 'f', 2, 64) }

// AppHref is the page of the application the peak was seen in.
func (p Peak) AppHref() string { return "/apps/" + url.PathEscape(p.AppID) }

// Process names the process the peak was seen in: "driver" or
// "executor N".
func (p Peak) Process() string {
	if p.ExecutorID == "driver" {
		return "driver"
	}
	return "executor " + p.ExecutorID
}

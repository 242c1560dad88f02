// Package cost says what an application attempt cost: the core-hours and
// memory GB-hours its executors and driver held, per application, job and
// stage, and in money when prices are given. It also puts the waste a
// finding estimates and the saving a tuning change predicts in the same
// units. It reads the analysis (executor lifetimes, the resources asked
// for) and computes; it neither judges nor renders.
package cost

import (
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

// gb is the unit of memory GB-hours: 2^30 bytes, the unit cloud providers
// price memory in (what they call a GB is a GiB).
const gb = float64(1 << 30)

// msPerHour converts milliseconds to hours.
const msPerHour = 3.6e6

// Prices are what one core-hour and one memory GB-hour cost, in the
// user's currency. Zero prices (the default) show hours only: sparkdx
// does not guess what a cluster costs.
type Prices struct {
	CoreHour float64 `json:"coreHour"`
	GBHour   float64 `json:"gbHour"`
}

// Set tells whether any price was given.
func (p Prices) Set() bool { return p.CoreHour > 0 || p.GBHour > 0 }

// Money is what hours cost at p; 0 without prices.
func (p Prices) Money(coreHours, gbHours float64) float64 {
	return coreHours*p.CoreHour + gbHours*p.GBHour
}

// Usage is resources held over time.
type Usage struct {
	CoreHours     float64 `json:"coreHours"`
	MemoryGBHours float64 `json:"memoryGbHours"`
	// Money is the usage at the report's prices; absent without prices.
	Money *float64 `json:"money,omitempty"`
}

func (u *Usage) add(o Usage) {
	u.CoreHours += o.CoreHours
	u.MemoryGBHours += o.MemoryGBHours
}

// price fills Money at p (clears it without prices).
func (u *Usage) price(p Prices) { *u = u.At(p) }

// At is the usage with its money at p; without prices, hours only.
func (u Usage) At(p Prices) Usage {
	u.Money = nil
	if p.Set() {
		m := p.Money(u.CoreHours, u.MemoryGBHours)
		u.Money = &m
	}
	return u
}

// Part is one job's or stage's share of the executors' usage.
type Part struct {
	ID        int `json:"id"`
	AttemptID int `json:"attemptId,omitempty"` // stages only
	Usage
	// TaskCoreHours is the core time its tasks ran: the used part of
	// CoreHours; the rest is its share of the time cores sat idle.
	TaskCoreHours float64 `json:"taskCoreHours"`
}

// FindingCost is what one finding's problem wasted, in the report's
// units: its core time, with the memory those cores held.
type FindingCost struct {
	Rule  string `json:"rule"`
	Title string `json:"title"`
	Usage
}

// Cost is an application attempt's resource usage. Total is Executors +
// Driver; the jobs' and stages' usages share out Executors by task time
// (idle executor time is charged to the work in proportion), so they add
// up to it. In local mode the driver runs the tasks and there are no
// executors: everything is the driver's and is shared out likewise.
type Cost struct {
	Prices *Prices `json:"prices,omitempty"`
	// InstanceType is the instance type the application's properties
	// name (instanceTypeProperties), which a price file may price apart.
	InstanceType string        `json:"instanceType,omitempty"`
	Total        Usage         `json:"total"`
	Executors    Usage         `json:"executors"`
	Driver       Usage         `json:"driver"`
	Jobs         []Part        `json:"jobs"`
	Stages       []Part        `json:"stages"`
	Findings     []FindingCost `json:"findings"`
	// MemoryPerCoreBytes is the memory one executor core holds (the
	// container's memory ÷ its cores): what a wasted core-hour also holds.
	MemoryPerCoreBytes int64 `json:"memoryPerCoreBytes"`
}

// Price fills every Money at p; zero prices remove them.
func (c *Cost) Price(p Prices) {
	if c == nil {
		return
	}
	c.Prices = nil
	if p.Set() {
		c.Prices = &p
	}
	for _, u := range []*Usage{&c.Total, &c.Executors, &c.Driver} {
		u.price(p)
	}
	for i := range c.Jobs {
		c.Jobs[i].price(p)
	}
	for i := range c.Stages {
		c.Stages[i].price(p)
	}
	for i := range c.Findings {
		c.Findings[i].price(p)
	}
}

// Of computes the usage of an analysed attempt.
func Of(a *model.Attempt, res *analyze.Result) *Cost {
	c := &Cost{Jobs: []Part{}, Stages: []Part{}, Findings: []FindingCost{}}
	props := map[string]string{}
	if a != nil {
		for _, p := range a.Env.SparkProperties {
			props[p[0]] = p[1]
		}
	}
	c.InstanceType = instanceType(props)
	cfg := res.Config
	container := cfg.ContainerBytes()
	local := true
	for i := range res.Executors {
		if res.Executors[i].ID != "driver" {
			local = false
		}
	}
	for i := range res.Executors {
		e := &res.Executors[i]
		if e.ID == "driver" {
			continue
		}
		c.Executors.add(held(e.LifetimeMs, max(e.Cores, 0), container))
		if e.Cores > 0 && c.MemoryPerCoreBytes == 0 {
			c.MemoryPerCoreBytes = container / int64(e.Cores)
		}
	}
	c.Driver = held(max(res.DurationMs, 0), driverCores(props, cfg.Master, res), driverBytes(props, cfg))
	if local && c.MemoryPerCoreBytes == 0 {
		if n := driverCores(props, cfg.Master, res); n > 0 {
			c.MemoryPerCoreBytes = driverBytes(props, cfg) / int64(n)
		}
	}
	c.Total = c.Executors
	c.Total.add(c.Driver)
	worker := c.Executors
	if local {
		worker = c.Driver
	}
	c.shareOut(res, worker)
	return c
}

// held is cores and bytes held for ms.
func held(ms int64, cores int, bytes int64) Usage {
	h := float64(ms) / msPerHour
	return Usage{CoreHours: h * float64(cores), MemoryGBHours: h * float64(bytes) / gb}
}

// driverCores is spark.driver.cores (1 by default); in local mode the
// driver holds the cores its master string names, which the analysis
// records as the most cores alive.
func driverCores(props map[string]string, master string, res *analyze.Result) int {
	if strings.HasPrefix(master, "local") && res.CriticalPath.MaxCores > 0 {
		return res.CriticalPath.MaxCores
	}
	if n, err := strconv.Atoi(strings.TrimSpace(props["spark.driver.cores"])); err == nil && n > 0 {
		return n
	}
	return 1
}

// driverBytes is the driver's heap and its overhead: spark.driver.memory
// plus spark.driver.memoryOverhead, or max(384 MiB, 10 % of the heap) as
// Spark asks a cluster manager for.
func driverBytes(props map[string]string, cfg analyze.Config) int64 {
	const mib = int64(1) << 20
	overhead := max(384*mib, cfg.DriverMemoryBytes/10)
	if v, ok := props["spark.driver.memoryOverhead"]; ok {
		overhead = analyze.ParseSize(v, mib, overhead)
	}
	return cfg.DriverMemoryBytes + overhead
}

// shareOut gives each stage attempt the share of worker's usage its task
// time is of all task time, and each job the sum of its stages (a stage
// shared by jobs counts for the first).
func (c *Cost) shareOut(res *analyze.Result, worker Usage) {
	var total int64
	for i := range res.Stages {
		total = model.SatAdd(total, res.Stages[i].TaskTimeMs)
	}
	if total <= 0 {
		return
	}
	jobs := map[int]*Part{}
	var order []int
	for i := range res.Jobs {
		id := res.Jobs[i].ID
		if _, ok := jobs[id]; !ok {
			jobs[id] = &Part{ID: id}
			order = append(order, id)
		}
	}
	for i := range res.Stages {
		s := &res.Stages[i]
		share := float64(s.TaskTimeMs) / float64(total)
		p := Part{ID: s.StageID, AttemptID: s.AttemptID, TaskCoreHours: float64(s.TaskTimeMs) / msPerHour,
			Usage: Usage{CoreHours: worker.CoreHours * share, MemoryGBHours: worker.MemoryGBHours * share}}
		c.Stages = append(c.Stages, p)
		if len(s.JobIDs) > 0 {
			if j := jobs[s.JobIDs[0]]; j != nil {
				j.add(p.Usage)
				j.TaskCoreHours += p.TaskCoreHours
			}
		}
	}
	for _, id := range order {
		c.Jobs = append(c.Jobs, *jobs[id])
	}
}

// CoreMs is the usage of coreMs of executor core time: the core-hours
// and the memory those cores hold (MemoryPerCoreBytes each).
func (c *Cost) CoreMs(coreMs int64) Usage {
	h := float64(max(coreMs, 0)) / msPerHour
	return Usage{CoreHours: h, MemoryGBHours: h * float64(c.MemoryPerCoreBytes) / gb}
}

package analyze

// simulation is what every what-if run reads, worked out once: per job
// group its stages' recorded task durations, each first task's cold start
// taken out. whatIf simulates four or five core counts over the same
// tasks; reading each task (and looking up its cold start) once instead
// of per run was 5.5 % of analyze's CPU on a 1 GB log.
type simulation struct {
	groups   []simGroup
	most     int     // tasks of the largest group: more slots change nothing
	durs     []int64 // every stage's durations, in its task order
	coldMean int64   // the cold start each simulated executor pays once
}

type simGroup struct{ stages []simStage }

type simStage struct {
	id       int
	parents  []int
	from, to int // its durations: simulation.durs[from:to]
}

func newSimulation(groups []*jobGroup, cs coldStarts) *simulation {
	sim := &simulation{groups: make([]simGroup, len(groups))}
	for i, g := range groups {
		n := 0
		stages := make([]simStage, len(g.stages))
		for k, s := range g.stages {
			n += len(s.Tasks)
			from := len(sim.durs)
			for _, t := range s.Tasks {
				if t.FinishTime != 0 {
					sim.durs = append(sim.durs, t.FinishTime-t.LaunchTime-cs.excess[t])
				}
			}
			stages[k] = simStage{id: s.StageID, parents: s.ParentIDs, from: from, to: len(sim.durs)}
		}
		sim.groups[i].stages = stages
		sim.most = max(sim.most, n)
	}
	sim.coldMean = cs.mean
	return sim
}

// simulate replays the recorded task durations of every job group on
// cores task slots of perExec cores per executor, as Sparklens' what-if
// does: a stage starts when its parents finished, each task on the
// earliest free slot. Each simulated executor pays the recorded cold
// start once, on its first task (the recorded first tasks run warm). It
// returns the estimated wall time including the driver's time outside
// jobs.
func simulate(groups []*jobGroup, driverMs int64, cores, perExec int, cs coldStarts) int64 {
	return newSimulation(groups, cs).run(driverMs, cores, perExec)
}

// run is simulate on the prepared tasks.
func (sim *simulation) run(driverMs int64, cores, perExec int) int64 {
	if cores <= 0 {
		return 0
	}
	cores = max(min(cores, sim.most), 1)
	perExec = max(perExec, 1)
	warm := make([]bool, cores/perExec+1) // by simulated executor
	total := driverMs
	h := make(slots, cores)
	for _, g := range sim.groups {
		for i := range h {
			h[i] = slot{exec: i / perExec, id: i}
		}
		finish := map[int]int64{}
		var groupEnd int64
		for _, s := range g.stages {
			var ready int64
			for _, p := range s.parents {
				ready = max(ready, finish[p])
			}
			ready = max(ready, finish[s.id]) // a re-attempt follows its predecessor
			end := ready
			for _, d := range sim.durs[s.from:s.to] {
				if !warm[h[0].exec] {
					warm[h[0].exec] = true
					d += sim.coldMean
				}
				start := max(h[0].free, ready)
				h[0].free = start + d
				h.down()
				end = max(end, start+d)
			}
			finish[s.id] = end
			groupEnd = max(groupEnd, end)
		}
		total += groupEnd
	}
	return total
}

// slot is one core of the simulated cluster: when it is next free and
// which executor it belongs to.
type slot struct {
	free int64
	exec int
	id   int
}

// slots is a min-heap of cores by the time they become free, then by id
// (a total order, so the simulation does not depend on the heap's code).
type slots []slot

func (h slots) less(i, j int) bool {
	if h[i].free != h[j].free {
		return h[i].free < h[j].free
	}
	return h[i].id < h[j].id
}

// down restores the heap after its root's free time grew: container/heap's
// Fix(h, 0) without the interface calls (a third of the simulation's time).
func (h slots) down() {
	i, n := 0, len(h)
	for {
		j := 2*i + 1
		if j >= n || j < 0 {
			return
		}
		if r := j + 1; r < n && h.less(r, j) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

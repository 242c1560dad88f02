package tune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

// maxBroadcast is the largest join side tune lets Spark broadcast: the
// driver collects the side and every executor holds a copy.
const maxBroadcast = 256 * mib

// shuffledJoin is a sort-merge or shuffled hash join and what its sides
// shuffled.
type shuffledJoin struct {
	x          *analyze.SQLExecution
	node       *analyze.SQLNode
	small, big int64 // the sides' exchange data sizes
	bigMaps    []int // the stages that wrote the big side's shuffle
}

// shuffledJoins finds every join whose two sides came through an
// exchange, with the exchanges' "data size".
func (in *input) shuffledJoins() []shuffledJoin {
	var out []shuffledJoin
	for xi := range in.res.SQL {
		x := &in.res.SQL[xi]
		for ni := range x.Nodes {
			n := &x.Nodes[ni]
			if !strings.Contains(n.Name, analyze.JoinSortMerge) && !strings.Contains(n.Name, analyze.JoinShuffledHash) || len(n.Children) != 2 {
				continue
			}
			l, r := exchangeBelow(x.Nodes, n.Children[0]), exchangeBelow(x.Nodes, n.Children[1])
			if l == nil || r == nil {
				continue
			}
			j := shuffledJoin{x: x, node: n, small: l.Metrics["data size"], big: r.Metrics["data size"]}
			bigEx := r
			if j.small > j.big {
				j.small, j.big, bigEx = j.big, j.small, l
			}
			for _, id := range bigEx.Stages {
				if !slices.Contains(n.Stages, id) {
					j.bigMaps = append(j.bigMaps, id)
				}
			}
			out = append(out, j)
		}
	}
	return out
}

// exchangeBelow is the shuffle exchange under node id through one-child
// nodes (sorts, projections, AQE readers), nil when there is none.
func exchangeBelow(nodes []analyze.SQLNode, id int) *analyze.SQLNode {
	for depth := 0; depth < 16 && id >= 0 && id < len(nodes); depth++ {
		n := &nodes[id]
		if strings.Contains(n.Name, "Exchange") && !strings.Contains(n.Name, "Broadcast") {
			if _, ok := n.Metrics["data size"]; ok {
				return n
			}
		}
		if len(n.Children) != 1 {
			return nil
		}
		id = n.Children[0]
	}
	return nil
}

// broadcastThreshold raises spark.sql.autoBroadcastJoinThreshold above
// the small side of shuffled joins whose small side a broadcast could
// carry, so that the big side is joined where it is read.
func broadcastThreshold(in *input) ([]Change, []Kept) {
	const key = "spark.sql.autoBroadcastJoinThreshold"
	threshold := analyze.ParseSize(in.setting(key), 1, 10*mib)
	if strings.TrimSpace(in.setting(key)) == "-1" {
		threshold = -1
	}
	var small int64
	var e Effect
	var ids []int
	per := map[int]int64{}
	n := 0
	for _, j := range in.shuffledJoins() {
		if j.small <= 0 || j.small > maxBroadcast || j.small <= threshold || j.big < 4*j.small {
			continue
		}
		n++
		small = max(small, j.small)
		for _, id := range j.node.Stages {
			if s := in.stage(id); s != nil {
				e.WallMs -= s.DurationMs
				e.CoreMs -= s.TaskTimeMs
				per[id] -= s.DurationMs
				ids = append(ids, id)
			}
		}
		for _, id := range j.bigMaps {
			if s := in.stage(id); s != nil {
				w := s.ShuffleWriteTimeNs / 1e6
				e.CoreMs -= w
				e.WallMs -= w / int64(max(min(s.NumTasks, in.cores()), 1))
				per[id] -= w / int64(max(min(s.NumTasks, in.cores()), 1))
				ids = append(ids, id)
			}
		}
	}
	if n == 0 {
		return nil, nil
	}
	to := max(roundUp(2*small, mib), 10*mib)
	e.Basis = "the join stages go (the big side is joined where it is read, its shuffle write too); the hash probe that replaces the sort-merge is not counted"
	return []Change{{Property: key, From: in.setting(key), To: fmtSize(to), Stages: ids, Effect: e, perStage: per,
		Why: fmt.Sprintf("%d shuffled joins had a side of at most %s against a threshold of %s: a broadcast would skip the big side's shuffle and sort",
			n, units.Bytes(small), fmtThreshold(threshold)),
		Evidence: map[string]any{"smallSideBytes": small, "thresholdBytes": threshold, "joins": n},
		Risk:     "the driver collects and every executor holds the small side: a side that grows past this run's size costs driver and executor memory (Spark estimates sizes from statistics, not from this run)"}}, nil
}

func fmtThreshold(b int64) string {
	if b < 0 {
		return "-1 (off)"
	}
	return fmtSize(b)
}

// skewJoin turns on AQE's skew join handling for sort-merge joins whose
// stage data-skew found skewed (data-skew tells skew from stragglers by
// the tasks' input), with the size settings AQE needs to split the
// skewed partition: AQE splits a partition only above
// skewedPartitionThresholdInBytes (256 MiB by default), into pieces of
// max(advisoryPartitionSizeInBytes, the other partitions' mean), so a
// skewed partition under either would stay whole.
func skewJoin(in *input) ([]Change, []Kept) {
	ids, per, e, most := in.skewedJoinStages()
	if len(ids) == 0 {
		return nil, nil
	}
	const (
		aqe       = "spark.sql.adaptive.enabled"
		enabled   = "spark.sql.adaptive.skewJoin.enabled"
		threshold = "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes"
		advisory  = "spark.sql.adaptive.advisoryPartitionSizeInBytes"
	)
	why := fmt.Sprintf("%d join stages waited for a skewed task (largest read %s)", len(ids), units.Bytes(most))
	evidence := map[string]any{"maxTaskBytes": most, "cores": in.cores()}
	risk := "AQE splits the skewed partition and replicates the other side's matching partition: more tasks and shuffle reads"
	lead := func(key, to, why string) Change {
		return Change{Property: key, From: in.setting(key), To: to, Why: why, Evidence: evidence, Effect: e, Stages: ids, Risk: risk, perStage: per}
	}
	var out []Change
	switch {
	case in.setting(aqe) != "true":
		out = append(out, lead(aqe, "true", why+"; skew join handling needs AQE"))
	case in.setting(enabled) != "true":
		out = append(out, lead(enabled, "true", why))
	}
	// The sizes that let AQE split this partition: they carry no effect
	// of their own (the change above, or the skew join already on, has it).
	sizes, sizesPer := e, per
	if len(out) > 0 {
		sizesPer = nil
		sizes = Effect{Basis: "lets AQE split the skewed partition: the effect is the skew join's, counted with it"}
	}
	size := func(key, from string, to int64, why string) Change {
		return Change{Property: key, From: from, To: fmtSize(to), Why: why, Evidence: evidence, Effect: sizes, Stages: ids, Risk: risk, perStage: sizesPer}
	}
	current := analyze.ParseSize(in.setting(threshold), 1, 256*mib)
	// Half the largest read, on whole MiB: above AQE's minimum partition
	// size and below the read, so that AQE sees the partition as skewed.
	if to := max(roundUp(most/2, mib), mib); most > 2*mib && to < current && most <= current {
		out = append(out, size(threshold, fmtSize(current), to, why+fmt.Sprintf(": AQE splits only partitions above its %s skew threshold", fmtSize(current))))
	}
	// Pieces of about the largest read ÷ the cores: one wave of pieces.
	adv := analyze.ParseSize(in.setting(advisory), 1, 64*mib)
	if to := max(most/int64(in.cores())/mib*mib, mib); most > 0 && to < adv && adv > most/2 {
		out = append(out, size(advisory, fmtSize(adv), to, why+fmt.Sprintf(": AQE splits it into pieces of at least the %s advisory size, so it would stay whole", fmtSize(adv))))
	}
	if len(out) == 0 {
		return nil, []Kept{{threshold, "AQE skew join is on and the skewed partitions are above its thresholds: the skew is within a partition AQE cannot split"}}
	}
	return out, nil
}

// skewedJoinStages are the join stages data-skew found skewed, with the
// predicted effect of splitting their skewed partitions and their
// largest task read. Split into pieces spread over the cores, a stage
// runs about its task time ÷ the cores, and no less than its median
// task: what it ran beyond that is saved (at most its longest task
// beyond the median, what the skew cost).
func (in *input) skewedJoinStages() (ids []int, per map[int]int64, e Effect, most int64) {
	joinStages := map[int]bool{}
	for _, j := range in.shuffledJoins() {
		for _, id := range j.node.Stages {
			joinStages[id] = true
		}
	}
	per = map[int]int64{}
	for _, f := range in.rule("data-skew") {
		for _, id := range f.StageIDs {
			s := in.stage(id)
			if s == nil || !joinStages[id] || per[id] != 0 {
				continue
			}
			even := max(s.TaskTimeMs/int64(in.cores()), s.TaskDurationMs.P50)
			w := min(max(s.DurationMs-even, 0), max(s.Longest.DurationMs-s.TaskDurationMs.P50, 0))
			if w == 0 {
				continue
			}
			e.WallMs -= w
			per[id] -= w
			ids = append(ids, id)
			most = max(most, s.TaskBytes.Max)
		}
	}
	e.Basis = "the skewed join stages split over the cores: each runs its task time ÷ the cores (at least its median task); the rest is saved"
	return ids, per, e, most
}

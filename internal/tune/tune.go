// Package tune recommends Spark configuration changes for one analysed
// application attempt, each with the evidence it rests on, its predicted
// effect on wall and executor core time, and its risk. It reads the same
// analysis the rules judge (analyze.Result, the findings, the what-if)
// and models each change's effect on the recorded stages; the table in
// docs/tuning.md checks those predictions against real re-runs.
package tune

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

const (
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// Change is one recommended property value.
type Change struct {
	Property string `json:"property"`
	From     string `json:"from"` // as the app ran (Spark's default when unset)
	To       string `json:"to"`
	// Why is the evidence in words; Evidence the numbers behind it.
	Why      string         `json:"why"`
	Evidence map[string]any `json:"evidence"`
	// Effect is the predicted change of the app's wall and executor core
	// time (negative: saved); Saving the core time saved in cost units.
	Effect Effect     `json:"effect"`
	Saving cost.Usage `json:"saving"`
	Risk   string     `json:"risk"`
	// Stages are the stages whose recorded run the prediction rests on.
	Stages []int `json:"stageIds"`
	// perStage is the wall time the change saves per stage: two changes
	// that act on one stage do not save its time twice (Recommend).
	perStage map[int]int64
}

// onStage records a change's wall effect on one stage.
func (c *Change) onStage(id int, wallMs int64) {
	if c.perStage == nil {
		c.perStage = map[int]int64{}
	}
	c.perStage[id] += wallMs
}

// Effect is a predicted change in milliseconds: negative saves time.
type Effect struct {
	WallMs int64 `json:"wallMs"`
	CoreMs int64 `json:"coreMs"`
	// MemoryGBHours is memory held beyond what the core time holds:
	// a smaller or larger container over the executors' lifetimes.
	MemoryGBHours float64 `json:"memoryGbHours"`
	Basis         string  `json:"basis"` // how it was estimated
}

// Plan is every change recommended for one attempt, most wall time saved
// first; Wall and Core are the app's recorded totals the effects are
// relative to.
type Plan struct {
	AppID   string   `json:"appId"`
	WallMs  int64    `json:"wallMs"`
	CoreMs  int64    `json:"coreMs"`
	Changes []Change `json:"changes"`
	// Predicted is the changes' effects together: per stage the largest
	// wall time one change saves there (two changes that act on one stage
	// do not save its time twice), plus the effects on no stage; core
	// time and memory add up.
	Predicted Effect `json:"predicted"`
	// Keep are the properties looked at and left alone, with why.
	Keep []Kept `json:"keep"`
}

// Kept is a property tune looked at and leaves as it is.
type Kept struct {
	Property string `json:"property"`
	Why      string `json:"why"`
}

// input is what every recommender reads.
type input struct {
	a        *model.Attempt
	res      *analyze.Result
	findings []diagnose.Finding
	cost     *cost.Cost
	settings map[string]string
}

// setting is a property's value as the app ran (Spark's default for those
// analyze lists; "" for others it did not set).
func (in *input) setting(key string) string {
	if v, ok := in.settings[key]; ok {
		return v
	}
	return ""
}

// cores is the most executor cores alive at once: the parallelism the
// recorded run had.
func (in *input) cores() int { return max(in.res.CriticalPath.MaxCores, 1) }

// recommender proposes changes (or says why it keeps a property).
type recommender func(in *input) ([]Change, []Kept)

// recommenders are every recommender, in the order they run; the plan
// sorts their changes.
func recommenders() []recommender {
	return []recommender{memoryFraction, executorMemory, memoryOverhead, shufflePartitions,
		broadcastThreshold, skewJoin, executorCount}
}

// Recommend builds the plan for an analysed attempt and its findings.
func Recommend(a *model.Attempt, res *analyze.Result, findings []diagnose.Finding) *Plan {
	in := &input{a: a, res: res, findings: findings, cost: cost.Of(a, res), settings: map[string]string{}}
	for _, s := range res.Settings {
		in.settings[s.Key] = s.Value
	}
	if a != nil {
		for _, p := range a.Env.SparkProperties {
			in.settings[p[0]] = p[1]
		}
	}
	p := &Plan{AppID: res.AppID, WallMs: res.DurationMs, CoreMs: res.CoreTimeMs(), Changes: []Change{}, Keep: []Kept{}}
	for _, r := range recommenders() {
		cs, ks := r(in)
		p.Changes = append(p.Changes, cs...)
		p.Keep = append(p.Keep, ks...)
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Evidence == nil {
			c.Evidence = map[string]any{}
		}
		if c.Stages == nil {
			c.Stages = []int{}
		}
		// Signed: a change that buys speed with more cores costs more.
		c.Saving = in.cost.CoreMs(abs(c.Effect.CoreMs))
		if c.Effect.CoreMs > 0 {
			c.Saving.CoreHours, c.Saving.MemoryGBHours = -c.Saving.CoreHours, -c.Saving.MemoryGBHours
		}
		c.Saving.MemoryGBHours -= c.Effect.MemoryGBHours
		p.Predicted.CoreMs += c.Effect.CoreMs
		p.Predicted.MemoryGBHours += c.Effect.MemoryGBHours
	}
	p.Predicted.WallMs = combinedWall(p.Changes)
	p.Predicted.WallMs = max(p.Predicted.WallMs, -p.WallMs)
	p.Predicted.CoreMs = max(p.Predicted.CoreMs, -p.CoreMs)
	p.Predicted.Basis = "per stage the largest saving one change predicts there, plus the effects on no stage"
	slices.SortStableFunc(p.Changes, func(x, y Change) int { return int(x.Effect.WallMs - y.Effect.WallMs) })
	return p
}

// combinedWall is the wall effect of every change made together: per
// stage the largest saving any change predicts there, plus each change's
// effect outside its stages.
func combinedWall(cs []Change) int64 {
	best := map[int]int64{}
	var rest int64
	for _, c := range cs {
		var staged int64
		for id, w := range c.perStage {
			best[id] = min(best[id], w)
			staged += w
		}
		rest += c.Effect.WallMs - staged
	}
	for _, w := range best {
		rest += w
	}
	return rest
}

// Price fills the savings' money at prices.
func (p *Plan) Price(prices cost.Prices) {
	for i := range p.Changes {
		s := &p.Changes[i].Saving
		s.Money = nil
		if prices.Set() {
			m := prices.Money(s.CoreHours, s.MemoryGBHours) // negative: a change that costs more
			s.Money = &m
		}
	}
}

// ConfLines are the changes as spark-submit arguments, one per line.
func (p *Plan) ConfLines() []string {
	out := make([]string, 0, len(p.Changes))
	for _, c := range p.Changes {
		out = append(out, fmt.Sprintf("--conf %s=%s", c.Property, c.To))
	}
	return out
}

// DefaultsConf is the changes as a spark-defaults.conf fragment, each
// with its reason as a comment.
func (p *Plan) DefaultsConf() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sparkdx tune %s\n", oneLine(p.AppID))
	for _, c := range p.Changes {
		fmt.Fprintf(&b, "# %s (was %s)\n%-48s %s\n", oneLine(c.Why), oneLine(c.From), c.Property, c.To)
	}
	return b.String()
}

// Conf is the changes as property → value, for a re-run.
func (p *Plan) Conf() map[string]string {
	m := make(map[string]string, len(p.Changes))
	for _, c := range p.Changes {
		m[c.Property] = c.To
	}
	return m
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// findings of one rule.
func (in *input) rule(name string) []diagnose.Finding {
	var out []diagnose.Finding
	for _, f := range in.findings {
		if f.Rule == name {
			out = append(out, f)
		}
	}
	return out
}

// stage finds a stage's latest attempt.
func (in *input) stage(id int) *analyze.Stage {
	var s *analyze.Stage
	for i := range in.res.Stages {
		if in.res.Stages[i].StageID == id {
			s = &in.res.Stages[i]
		}
	}
	return s
}

// fmtSize writes bytes the way Spark reads them: whole MiB as "Nm", whole
// GiB as "Ng".
func fmtSize(b int64) string {
	if b%gib == 0 && b > 0 {
		return fmt.Sprintf("%dg", b/gib)
	}
	return fmt.Sprintf("%dm", (b+mib-1)/mib)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func roundUp(v, step int64) int64 { return (v + step - 1) / step * step }

package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sparkdx/sparkdx/internal/tune"
	"github.com/sparkdx/sparkdx/internal/units"
)

// tuningRow is one recommended change as the text and HTML reports show
// it.
type tuningRow struct {
	Property, From, To, Why, Effect, Saving, Risk, Basis string
}

func tuningRows(p *tune.Plan) []tuningRow {
	if p == nil {
		return nil
	}
	out := make([]tuningRow, 0, len(p.Changes))
	for _, c := range p.Changes {
		out = append(out, tuningRow{Property: c.Property, From: units.OneLine(c.From), To: c.To, Why: units.OneLine(c.Why),
			Effect: fmtEffect(c.Effect, p.WallMs), Saving: c.Saving.String(), Risk: c.Risk, Basis: c.Effect.Basis})
	}
	return out
}

// fmtEffect says a predicted effect: "wall −4.2s (−14 %), core −8.1s".
func fmtEffect(e tune.Effect, wallMs int64) string {
	s := fmt.Sprintf("wall %s", signedMs(e.WallMs))
	if wallMs > 0 && e.WallMs != 0 {
		s += fmt.Sprintf(" (%+.0f %%)", 100*float64(e.WallMs)/float64(wallMs))
	}
	s += ", core " + signedMs(e.CoreMs)
	if e.MemoryGBHours != 0 {
		s += fmt.Sprintf(", memory %+.3g GB-h", e.MemoryGBHours)
	}
	return s
}

func signedMs(ms int64) string {
	switch {
	case ms < 0:
		return "−" + fmtDuration(-ms)
	case ms > 0:
		return "+" + fmtDuration(ms)
	}
	return "0"
}

// TuningLines are the plan for a person, one change per block: what to
// set, why, the predicted effect and saving, and the risk.
func TuningLines(p *tune.Plan) []string {
	var out []string
	for i, r := range tuningRows(p) {
		out = append(out, "",
			fmt.Sprintf("%d. %s: %s → %s", i+1, r.Property, r.From, r.To),
			"   why      "+r.Why,
			"   effect   "+r.Effect+" — "+r.Basis,
			"   saving   "+r.Saving,
			"   risk     "+r.Risk)
	}
	if p != nil && len(p.Keep) > 0 {
		out = append(out, "", "left as they are:")
		for _, k := range p.Keep {
			out = append(out, fmt.Sprintf("   %s: %s", k.Property, k.Why))
		}
	}
	return out
}

// writeTuning prints the plan's changes in one line each: the full reasons
// are sparkdx tune's.
func writeTuning(w io.Writer, p *tune.Plan, st style) {
	rows := tuningRows(p)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Tuning"), st.dim(fmt.Sprintf("%d changes; sparkdx tune LOG says why", len(rows))))
	for _, r := range rows {
		fmt.Fprintf(w, "  %s → %s  %s\n", r.Property, r.To, st.dim(strings.SplitN(r.Effect, ",", 2)[0]))
	}
}

package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/textsafe"
	"github.com/sparkdx/sparkdx/internal/units"
)

// diffStageRows is how many stage rows the text diff shows: the largest
// changes.
const diffStageRows = 15

// WriteDiffText writes the comparison for a person: verdict, phases,
// totals, the stages that changed most, and findings fixed or new.
func WriteDiffText(w io.Writer, d *diff.Diff, opts TextOptions) error {
	sw := textsafe.NewWriter(w) // names come from the logs
	defer sw.Flush()
	ew := &errWriter{w: sw}
	st := style{color: opts.Color}
	writeDiffHeader(ew, d, st)
	fmt.Fprintln(ew)
	writeConfigChanges(ew, d.Config, st, opts.width())
	writeChanges(ew, "Where the time went", d.Phases, st)
	fmt.Fprintln(ew)
	writeChanges(ew, "Totals", d.Totals, st)
	fmt.Fprintln(ew)
	writeStageChanges(ew, d, st)
	fmt.Fprintln(ew)
	writeFindingChanges(ew, d.Findings, st, opts.width())
	return ew.err
}

// writeConfigChanges lists the tuned Spark properties that differ, the
// most consequential first, each with what changed where it acts.
func writeConfigChanges(w io.Writer, cs []diff.ConfigChange, st style, width int) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "%s  %s\n", st.bold("Configuration changed"), st.dim(properties(len(cs))+", ranked by the change in the stages each acts on"))
	for _, c := range cs {
		fmt.Fprintf(w, "  %s  %s → %s\n", st.bold(units.OneLine(c.Key)), configValue(c.Before, c.BeforeDefault),
			configValue(c.After, c.AfterDefault))
		what := c.Effect
		if what == "" && c.Acts != "" {
			what = "acts on " + c.Acts + ": nothing there changed"
		}
		if what != "" {
			for _, l := range wrap(units.OneLine(what), width-6) {
				fmt.Fprintf(w, "      %s\n", st.dim(l))
			}
		}
	}
	fmt.Fprintln(w)
}

func properties(n int) string {
	if n == 1 {
		return "1 property"
	}
	return fmt.Sprintf("%d properties", n)
}

// configValue shows a property's value, marking Spark's default.
func configValue(v string, def bool) string {
	v = units.OneLine(v)
	switch {
	case v == "":
		v = "unset"
	case def:
		v += " (default)"
	}
	return v
}

func writeDiffHeader(w io.Writer, d *diff.Diff, st style) {
	for _, r := range []struct {
		label string
		run   diff.Run
	}{{"before", d.Before}, {"after ", d.After}} {
		id := units.OneLine(r.run.AppID)
		if r.run.AttemptID != "" {
			id += " attempt " + units.OneLine(r.run.AttemptID)
		}
		status := ""
		if !r.run.Completed {
			status = st.wrap(sgrYellow, " incomplete")
		}
		fmt.Fprintf(w, "%s  %s %q  %s  %s%s\n", st.dim(r.label), st.bold(id), units.OneLine(r.run.Name),
			fmtTime(r.run.StartTime), st.bold(fmtDuration(r.run.DurationMs)), status)
		fmt.Fprintf(w, "        %s\n", st.dim(units.OneLine(r.run.Log)))
	}
	fmt.Fprintf(w, "%s\n", verdict(d, st))
}

// verdict says in one line whether the after run was faster.
func verdict(d *diff.Diff, st style) string {
	b, a := d.Before.DurationMs, d.After.DurationMs
	switch {
	case b <= 0 || a <= 0:
		return "  no wall time to compare"
	case a < b:
		return st.wrap(sgrGreen, fmt.Sprintf("→ after is %s faster: %s less wall time (%s → %s)",
			fmtPct(1-float64(a)/float64(b)), fmtDuration(b-a), fmtDuration(b), fmtDuration(a)))
	case a > b:
		return st.wrap(sgrRed, fmt.Sprintf("→ after is %s slower: %s more wall time (%s → %s)",
			fmtPct(float64(a)/float64(b)-1), fmtDuration(a-b), fmtDuration(b), fmtDuration(a)))
	}
	return "→ same wall time"
}

func fmtValue(unit string, v int64) string {
	switch unit {
	case "ms":
		return fmtDuration(v)
	case "bytes":
		return fmtBytes(v)
	}
	return fmt.Sprint(v)
}

// fmtDelta renders a signed change with its relative size.
func fmtDelta(c diff.Change) string {
	if c.Delta == 0 {
		return "="
	}
	sign := "+"
	if c.Delta < 0 {
		sign = "-"
	}
	abs := c.Delta
	if abs < 0 {
		abs = -abs
	}
	s := sign + fmtValue(c.Unit, abs)
	if c.Before != 0 {
		s += fmt.Sprintf(" (%s%s)", sign, fmtPct(abs2(c.Ratio-1)))
	}
	return s
}

func abs2(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// paintDelta colours a change: less time/bytes/failures is better.
func paintDelta(st style, delta int64) func(string) string {
	switch {
	case delta < 0:
		return func(l string) string { return st.wrap(sgrGreen, l) }
	case delta > 0:
		return func(l string) string { return st.wrap(sgrRed, l) }
	}
	return nil
}

func writeChanges(w io.Writer, title string, cs []diff.Change, st style) {
	fmt.Fprintln(w, st.bold(title))
	t := &table{head: []string{"", "before", "after", "change"}, right: []bool{false, true, true, true}}
	for _, c := range cs {
		t.add(paintDelta(st, c.Delta), c.Name, fmtValue(c.Unit, c.Before), fmtValue(c.Unit, c.After), fmtDelta(c))
	}
	t.write(w, st, "  ")
}

func writeStageChanges(w io.Writer, d *diff.Diff, st style) {
	counts := map[string]int{}
	for _, s := range d.Stages {
		if s.Status == diff.StageMatched {
			counts[s.Match]++
		} else {
			counts[s.Status]++
		}
	}
	fmt.Fprintf(w, "%s  %s\n", st.bold("Stages"), st.dim(fmt.Sprintf(
		"%d matched by name, %d by name without line numbers, %d by operation in order; %d added, %d removed",
		counts[diff.MatchName], counts[diff.MatchNameNoLines], counts[diff.MatchOperation], counts[diff.StageAdded], counts[diff.StageRemoved])))
	if len(d.Stages) == 0 {
		fmt.Fprintln(w, "  none: neither run ran a stage")
		return
	}
	rows := append([]diff.StageChange(nil), d.Stages...)
	sort.SliceStable(rows, func(i, j int) bool { return abs64(rows[i].DeltaMs) > abs64(rows[j].DeltaMs) })
	shown := rows[:min(len(rows), diffStageRows)]
	t := &table{head: []string{"before", "after", "name", "duration", "", "change", "tasks", "shuffle r", "", "matched by"},
		right: []bool{true, true, false, true, true, true, true, true, true, false}}
	for _, s := range shown {
		bID, aID, name := "-", "-", ""
		var bDur, aDur, bTasks, aTasks, bShuf, aShuf string = "-", "-", "-", "-", "-", "-"
		if s.Before != nil {
			bID, name = joinInts(s.Before.StageIDs), s.Before.Name
			bDur, bTasks, bShuf = fmtDuration(s.Before.DurationMs), fmt.Sprint(s.Before.Tasks), fmtBytesOrDash(s.Before.ShuffleReadBytes)
		}
		if s.After != nil {
			aID, name = joinInts(s.After.StageIDs), s.After.Name
			aDur, aTasks, aShuf = fmtDuration(s.After.DurationMs), fmt.Sprint(s.After.Tasks), fmtBytesOrDash(s.After.ShuffleReadBytes)
		}
		how := s.Match
		if s.Status != diff.StageMatched {
			how = s.Status
		}
		ch := "="
		if s.DeltaMs != 0 {
			ch = signedDuration(s.DeltaMs)
		}
		t.add(paintDelta(st, s.DeltaMs), bID, aID, units.ShortName(name, 34), bDur, "→ "+aDur, ch,
			bTasks+" → "+aTasks, bShuf, "→ "+aShuf, how)
	}
	t.write(w, st, "  ")
	if rest := len(rows) - len(shown); rest > 0 {
		fmt.Fprintf(w, "  %s\n", st.dim(fmt.Sprintf("… %d more with smaller changes (--format json or html lists all)", rest)))
	}
}

func signedDuration(ms int64) string {
	if ms > 0 {
		return "+" + fmtDuration(ms)
	}
	return fmtDuration(ms)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func writeFindingChanges(w io.Writer, f diff.FindingChanges, st style, width int) {
	fmt.Fprintf(w, "%s  %s\n", st.bold("Findings"), st.dim(fmt.Sprintf("%d fixed, %d new, %d in both",
		len(f.Removed), len(f.Added), len(f.Kept))))
	if len(f.Removed)+len(f.Added)+len(f.Kept) == 0 {
		fmt.Fprintln(w, "  none in either run")
		return
	}
	groups := []struct {
		label string
		code  string
		fs    []diff.FindingChange
	}{{"fixed", sgrGreen, f.Removed}, {"new", sgrRed, f.Added}, {"still", "", f.Kept}}
	for _, g := range groups {
		for _, c := range g.fs {
			sev := c.AfterSeverity
			if sev == "" {
				sev = c.BeforeSeverity
			}
			if g.label == "still" && c.BeforeSeverity != c.AfterSeverity {
				sev = c.BeforeSeverity + "→" + c.AfterSeverity
			}
			label := fmt.Sprintf("%-5s", g.label)
			if g.code != "" {
				label = st.wrap(g.code, label)
			}
			shown := c.AfterSeverity
			if shown == "" {
				shown = c.BeforeSeverity
			}
			fmt.Fprintf(w, "  %s  %s  %s  %s\n", label, st.severity(shown, fmt.Sprintf("%-8s", strings.ToUpper(sev))),
				st.bold(units.OneLine(c.Title)), st.dim("["+units.OneLine(c.Rule)+"]"))
			for _, l := range wrap(units.OneLine(c.Detail), width-19) {
				fmt.Fprintf(w, "%19s%s\n", "", l)
			}
		}
	}
}

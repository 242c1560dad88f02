package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/textsafe"
	"github.com/sparkdx/sparkdx/internal/units"
)

// TextOptions configure the text report.
type TextOptions struct {
	// Color turns on ANSI colour. The caller decides: on for a terminal,
	// off when NO_COLOR is set or output is a file or pipe.
	Color bool
	// Width is the terminal width the report wraps to; 0 means 100.
	Width int
	// TopStages is how many stages the stage table shows; 0 means 10.
	TopStages int
	// All shows every finding in full, the info ones included (which the
	// report otherwise counts in one line).
	All bool
}

func (o TextOptions) width() int {
	if o.Width <= 0 {
		return 100
	}
	return max(o.Width, 60)
}

func (o TextOptions) topStages() int {
	if o.TopStages <= 0 {
		return 10
	}
	return o.TopStages
}

// WriteText writes the text report of each input, one after another: a
// screenful a person reads top-down.
//
// Names, descriptions and messages come from the log: what would drive a
// terminal is escaped (package textsafe).
func WriteText(w io.Writer, ins []*Input, opts TextOptions) error {
	sw := textsafe.NewWriter(w)
	defer sw.Flush()
	ew := &errWriter{w: sw}
	for i, in := range ins {
		if i > 0 {
			fmt.Fprintf(ew, "\n%s\n\n", strings.Repeat("─", opts.width()))
		}
		writeText(ew, in, opts)
	}
	return ew.err
}

// errWriter remembers the first write error so the renderers can write
// freely and report once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}

func writeText(w io.Writer, in *Input, opts TextOptions) {
	st := style{color: opts.Color}
	writeAppLine(w, in, st)
	r := in.Result
	if r == nil {
		return
	}
	fmt.Fprintln(w)
	writePhaseBar(w, r, st, opts.width())
	fmt.Fprintln(w)
	writeSLIs(w, r, st)
	fmt.Fprintln(w)
	writeFindings(w, in.Report.Findings, st, opts)
	fmt.Fprintln(w)
	writeTopStages(w, r, st, opts.topStages())
	writeProfile(w, in, st, opts.topStages())
	writeTopQueries(w, r, st)
	writeStreaming(w, r, st)
	writeCommits(w, in.Report.Commits, st)
	writeMemory(w, r, st)
	writeCost(w, in.Report.ResourceCost, st)
	writeTuning(w, in.Report.Tuning, st)
	writeLostExecutors(w, r, st)
}

func writeAppLine(w io.Writer, in *Input, st style) {
	a := in.Report.App
	parts := []string{st.bold(units.OneLine(a.ID))}
	if a.AttemptID != "" {
		parts[0] += st.bold(" attempt " + units.OneLine(a.AttemptID))
	}
	if a.Name != "" {
		parts = append(parts, fmt.Sprintf("%q", units.OneLine(a.Name)))
	}
	if a.User != "" {
		parts = append(parts, "user "+units.OneLine(a.User))
	}
	if a.SparkVersion != "" {
		parts = append(parts, "Spark "+units.OneLine(a.SparkVersion))
	}
	if a.Master != "" {
		parts = append(parts, units.OneLine(a.Master))
	}
	for _, p := range in.Report.Plugins {
		parts = append(parts, units.OneLine(p.String()))
	}
	fmt.Fprintln(w, strings.Join(parts, " · "))

	status := st.wrap(sgrGreen, in.Report.Status())
	dur := a.DurationMs
	if r := in.Result; r != nil {
		dur = r.DurationMs
	}
	if !a.Completed || in.Report.Outcome.Status == "failed" || in.Report.Outcome.Status == "stopped" {
		status = st.wrap(sgrYellow, in.Report.Status())
	}
	fmt.Fprintf(w, "  %s  %s  %s\n", fmtTime(a.StartTime), st.bold(fmtDuration(dur)), status)
	l := in.Report.Log
	logLine := fmt.Sprintf("  log %s  %s, %d events", units.OneLine(l.Path), fmtBytes(l.Bytes), l.Events)
	if l.Codec != "" && l.Codec != "none" {
		logLine += ", " + l.Codec
	}
	if l.BadLines > 0 {
		logLine += st.wrap(sgrYellow, fmt.Sprintf(", %d bad lines skipped", l.BadLines))
	}
	if l.Truncated {
		logLine += st.wrap(sgrYellow, ", last line cut")
	}
	if n := unknownTotal(l.UnknownEvents); n > 0 {
		logLine += fmt.Sprintf(", %d events not interpreted", n)
	}
	fmt.Fprintln(w, st.dim(logLine))
}

func unknownTotal(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// phaseGlyphs tell the phases apart without colour.
var phaseOrder = []struct {
	phase analyze.Phase
	glyph string
	label string
}{
	{analyze.PhaseResourceWait, "░", "resource wait"},
	{analyze.PhaseCompute, "█", "compute"},
	{analyze.PhaseOutputWrite, "▓", "output write"},
	{analyze.PhaseDriverOnly, "·", "driver only"},
}

func phaseGlyph(p analyze.Phase) string {
	for _, o := range phaseOrder {
		if o.phase == p {
			return o.glyph
		}
	}
	return " "
}

func phaseMs(p analyze.Phases, ph analyze.Phase) int64 {
	switch ph {
	case analyze.PhaseResourceWait:
		return p.ResourceWaitMs
	case analyze.PhaseCompute:
		return p.ComputeMs
	case analyze.PhaseOutputWrite:
		return p.OutputWriteMs
	}
	return p.DriverOnlyMs
}

// writePhaseBar draws the timeline as one bar, start to end, each column
// showing the phase that held most of its slice of wall time.
func writePhaseBar(w io.Writer, r *analyze.Result, st style, width int) {
	fmt.Fprintf(w, "%s  %s\n", st.bold("Where the time went"), st.dim(fmtDuration(r.DurationMs)+" wall"))
	cols := width - 4
	bar := phaseColumns(r.Timeline, r.StartTime, r.EndTime, cols)
	if len(bar) > 0 {
		var b strings.Builder
		for i := 0; i < len(bar); {
			j := i
			for j < len(bar) && bar[j] == bar[i] {
				j++
			}
			b.WriteString(st.phase(string(bar[i]), strings.Repeat(phaseGlyph(bar[i]), j-i)))
			i = j
		}
		fmt.Fprintf(w, "  ▕%s▏\n", b.String())
	}
	var legend []string
	for _, o := range phaseOrder {
		ms := phaseMs(r.Phases, o.phase)
		legend = append(legend, fmt.Sprintf("%s %s %s %s", st.phase(string(o.phase), o.glyph), o.label,
			st.bold(fmtDuration(ms)), st.dim(fmtPct(r.Phases.Ratio(o.phase)))))
	}
	fmt.Fprintf(w, "  %s\n", strings.Join(legend, "   "))
}

// phaseColumns samples the timeline into n columns; each column gets the
// phase covering most of its time span.
func phaseColumns(tl []analyze.Interval, start, end int64, n int) []analyze.Phase {
	if len(tl) == 0 || end <= start || n <= 0 {
		return nil
	}
	out := make([]analyze.Phase, n)
	span := float64(end - start)
	k := 0
	for c := 0; c < n; c++ {
		lo := float64(start) + span*float64(c)/float64(n)
		hi := float64(start) + span*float64(c+1)/float64(n)
		for k < len(tl)-1 && float64(tl[k].End) <= lo {
			k++
		}
		best, bestLen := tl[k].Phase, -1.0
		cover := map[analyze.Phase]float64{}
		for j := k; j < len(tl) && float64(tl[j].Start) < hi; j++ {
			l := min(hi, float64(tl[j].End)) - max(lo, float64(tl[j].Start))
			cover[tl[j].Phase] += l
		}
		for _, o := range phaseOrder {
			if v, ok := cover[o.phase]; ok && v > bestLen {
				best, bestLen = o.phase, v
			}
		}
		out[c] = best
	}
	return out
}

// writeSLIs writes the headline figures (Figures: one per line, each
// with what it is a share of), then the data the application moved and
// the what-if.
func writeSLIs(w io.Writer, r *analyze.Result, st style) {
	fmt.Fprintln(w, st.bold("Key numbers"))
	figs := Figures(r)
	labelW, valW := width("peak task memory"), 0
	for _, f := range figs {
		labelW, valW = max(labelW, width(f.Name)), max(valW, width(f.Value))
	}
	for _, f := range figs {
		fmt.Fprintf(w, "  %s  %s  %s\n", st.dim(fmt.Sprintf("%-*s", labelW, f.Name)),
			st.bold(f.Value)+strings.Repeat(" ", valW-width(f.Value)), st.dim(f.Of))
	}
	var peak, spill, shRead, shWrite, input, output int64
	for _, s := range r.Stages {
		peak = max(peak, s.PeakExecutionMemoryBytes)
		spill += s.DiskSpilledBytes
		shRead += s.ShuffleReadBytes
		shWrite += s.ShuffleWriteBytes
		input += s.InputBytes
		output += s.OutputBytes
	}
	pairs := [][2]string{
		{"input/output", fmt.Sprintf("%s read, %s written", fmtBytes(input), fmtBytes(output))},
		{"shuffle", fmt.Sprintf("%s read, %s written", fmtBytes(shRead), fmtBytes(shWrite))},
		{"spill to disk", fmtBytesOrDash(spill)},
		{"peak task memory", fmtBytesOrDash(peak)},
		{"first executor", fmt.Sprintf("%s after start", fmtDuration(r.Phases.FirstExecutorDelayMs))},
	}
	pw := 0
	for i := 0; i < len(pairs); i += 2 {
		pw = max(pw, width(pairs[i][1]))
	}
	for i := 0; i < len(pairs); i += 2 {
		left := fmt.Sprintf("%-*s  %s", labelW, pairs[i][0], pairs[i][1])
		line := "  " + st.dim(fmt.Sprintf("%-*s", labelW, pairs[i][0])) + "  " + pairs[i][1]
		if i+1 < len(pairs) {
			pad := strings.Repeat(" ", labelW+2+pw-width(left)+4)
			line += pad + st.dim(fmt.Sprintf("%-*s", labelW, pairs[i+1][0])) + "  " + pairs[i+1][1]
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	if len(r.WhatIf) > 0 {
		var parts []string
		for _, x := range r.WhatIf {
			label := x.Label()
			if x.Actual {
				label += " (actual)"
			}
			parts = append(parts, fmt.Sprintf("%s → %s", label, fmtDuration(x.EstimatedMs)))
		}
		fmt.Fprintf(w, "  %s  %s\n", st.dim(fmt.Sprintf("%-*s", labelW, "what-if")), strings.Join(parts, " · "))
	}
}

// detailedFindings is how many findings get their detail, cost, parts and
// recipe; the rest (the least severe) get one line each.
const detailedFindings = 6

// maxPartsShown is how many of a folded finding's stages or executors the
// text names, worst first; the HTML report and the JSON have them all.
const maxPartsShown = 4

// writeFindings writes the findings a report shows by default — warning
// and critical, each with what it cost and the stages it covers — and
// one line for the info ones (all of them with opts.All). The raw
// evidence is the JSON report's.
func writeFindings(w io.Writer, fs []diagnose.Finding, st style, opts TextOptions) {
	counts := map[diagnose.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	shown, collapsed := diagnose.Shown(sortedFindings(fs), opts.All)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Findings"), st.dim(fmt.Sprintf("%d critical, %d warning, %d info",
		counts[diagnose.Critical], counts[diagnose.Warning], counts[diagnose.Info])))
	if len(fs) == 0 {
		fmt.Fprintln(w, "  none: no rule found a problem in this log")
		return
	}
	const indent = "            "
	width := opts.width()
	for i, f := range shown {
		sev := f.Severity.String()
		label := fmt.Sprintf("%-8s", strings.ToUpper(sev))
		fmt.Fprintf(w, "  %s  %s  %s\n", st.severity(sev, label), st.bold(units.OneLine(f.Title)), st.dim("["+units.OneLine(f.Rule)+"]"))
		if i >= detailedFindings && !opts.All {
			continue // past a screenful, one line each
		}
		for _, l := range wrap(units.OneLine(f.Detail), width-len(indent)) {
			fmt.Fprintf(w, "%s%s\n", indent, l)
		}
		if c := f.Cost.String(); c != "" {
			fmt.Fprintf(w, "%s%s %s\n", indent, st.dim("cost    "), c)
		}
		if parts := fmtParts(f.Parts); parts != "" {
			for i, l := range wrap(parts, width-len(indent)-9) {
				head := "        "
				if i == 0 {
					head = "covers  "
				}
				fmt.Fprintf(w, "%s%s %s\n", indent, st.dim(head), l)
			}
		}
		if f.Recipe != "" {
			fmt.Fprintf(w, "%s%s %s\n", indent, st.dim("recipe  "), units.OneLine(recipePath(f.Recipe)))
		}
	}
	if len(collapsed) > 0 {
		fmt.Fprintf(w, "  %s\n", st.dim(fmt.Sprintf("%s not shown (%s): --all shows them",
			plural(len(collapsed), "info finding"), ruleCounts(collapsed))))
	}
}

// fmtParts names a folded finding's stages or executors, worst first,
// each with its cost: "stage 23 ~4.9s · stage 13 ~2.6s · 6 more".
func fmtParts(ps []diagnose.Part) string {
	var out []string
	for i, p := range ps {
		if i == maxPartsShown {
			out = append(out, fmt.Sprintf("%d more", len(ps)-i))
			break
		}
		s := p.Where()
		if c := p.Cost.Short(); c != "" {
			s += " " + c
		}
		out = append(out, s)
	}
	return strings.Join(out, " · ")
}

// ruleCounts says which rules findings are of: "data-skew ×3, tiny-tasks".
func ruleCounts(fs []diagnose.Finding) string {
	n := map[string]int{}
	var order []string
	for _, f := range fs {
		if n[f.Rule] == 0 {
			order = append(order, f.Rule)
		}
		n[f.Rule]++
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = units.OneLine(r)
		if n[r] > 1 {
			parts[i] += fmt.Sprintf(" ×%d", n[r])
		}
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// recipePath names a finding's recipe by its path in the repository (the
// rules give it relative to docs/recipes/).
func recipePath(r string) string {
	if r == "" || strings.HasPrefix(r, "docs/") || strings.Contains(r, "://") {
		return r
	}
	return "docs/recipes/" + r
}

// wrap breaks text into lines of at most n columns at spaces.
func wrap(text string, n int) []string {
	if text == "" {
		return nil
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case width(line)+1+width(word) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// topStages are the n longest stage attempts, longest first.
func topStages(r *analyze.Result, n int) []analyze.Stage {
	ss := append([]analyze.Stage(nil), r.Stages...)
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].DurationMs > ss[j].DurationMs })
	return ss[:min(n, len(ss))]
}

func writeTopStages(w io.Writer, r *analyze.Result, st style, n int) {
	top := topStages(r, n)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Longest stages"), st.dim(fmt.Sprintf("%d of %d", len(top), len(r.Stages))))
	if len(top) == 0 {
		fmt.Fprintln(w, "  none: the application ran no stage")
		return
	}
	t := &table{
		head:  []string{"stage", "name", "tasks", "duration", "queued", "task p50", "p95", "max", "skew", "input", "shuffle r", "shuffle w", "spill", "GC"},
		right: []bool{true, false, true, true, true, true, true, true, true, true, true, true, true, true},
	}
	for _, s := range top {
		id := fmt.Sprintf("%d", s.StageID)
		if s.AttemptID > 0 {
			id += fmt.Sprintf(".%d", s.AttemptID)
		}
		var paint func(string) string
		name := units.OneLine(s.Name)
		if s.Status != "COMPLETE" {
			name = units.ShortName(name, 34-width(s.Status)-3) + " (" + strings.ToLower(units.OneLine(s.Status)) + ")"
			paint = func(l string) string { return st.wrap(sgrRed, l) }
		}
		t.add(paint, id, units.ShortName(name, 34),
			fmt.Sprintf("%d", s.NumTasks), fmtDuration(s.DurationMs), fmtDurationOrDash(s.QueuedMs),
			fmtDuration(s.TaskDurationMs.P50), fmtDuration(s.TaskDurationMs.P95), fmtDuration(s.TaskDurationMs.Max),
			fmtRatio(s.SkewDuration), fmtBytesOrDash(s.InputBytes), fmtBytesOrDash(s.ShuffleReadBytes),
			fmtBytesOrDash(s.ShuffleWriteBytes), fmtBytesOrDash(s.DiskSpilledBytes),
			fmtPct(share(s.GCShareMs, s.RunTimeTotalMs)))
	}
	t.write(w, st, "  ")
}

// writeLostExecutors lists executors that went away for a reason other
// than the application ending or dynamic allocation releasing them.
func writeLostExecutors(w io.Writer, r *analyze.Result, st style) {
	var lost []analyze.Executor
	for _, e := range r.Executors {
		switch e.Loss.Cause {
		case analyze.CauseNone, analyze.CauseDriver, analyze.CauseIdle:
			continue
		}
		lost = append(lost, e)
	}
	if len(lost) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Lost executors"), st.dim(fmt.Sprintf("%d of %d", len(lost), len(r.Executors))))
	t := &table{
		head:  []string{"executor", "host", "cause", "exit", "failed tasks", "peak heap", "reason"},
		right: []bool{false, false, false, true, true, true, false},
	}
	for _, e := range lost {
		t.add(nil, units.OneLine(e.ID), units.OneLine(e.Host), string(e.Loss.Cause), exitCell(e),
			fmt.Sprintf("%d", e.Loss.FailedTasks), fmtBytesOrDash(e.PeakJVMHeapBytes),
			truncate(units.OneLine(e.RemovedReason), 48))
	}
	t.write(w, st, "  ")
}

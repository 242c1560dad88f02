package hsperf

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// column is one jstat column computed from a snapshot's typed view, with
// jstat's own scale and precision (jstat_options in jdk.jcmd).
type column struct {
	header  string
	value   float64
	digits  int  // decimals jstat prints
	missing bool // jstat prints "-"
}

func (c column) String() string {
	if c.missing {
		return "-"
	}
	return strconv.FormatFloat(c.value, 'f', c.digits, 64)
}

// jstatColumns computes what `jstat -<option>` prints for the snapshot.
// Values come from the JVM view; a column is missing when jstat's counter
// is absent from the raw snapshot.
func jstatColumns(s *Snapshot, option string) []column {
	j := s.JVM()
	has := func(name string) bool { _, ok := s.Long(name); return ok }
	space := func(gen, sp int) *Space {
		for _, g := range j.Generations {
			if g.Index != gen {
				continue
			}
			for i := range g.Spaces {
				if g.Spaces[i].Index == sp {
					return &g.Spaces[i]
				}
			}
		}
		return &Space{}
	}
	collector := func(n int) *Collector {
		for i := range j.Collectors {
			if j.Collectors[i].Index == n {
				return &j.Collectors[i]
			}
		}
		return &Collector{}
	}
	kb := func(header string, v int64, counter string) column {
		return column{header: header, value: float64(v) / 1024, digits: 1, missing: !has(counter)}
	}
	switch option {
	case "gc":
		spaceCols := func(hc, hu string, gen, sp int) []column {
			p := fmt.Sprintf("sun.gc.generation.%d.space.%d.", gen, sp)
			return []column{
				kb(hc, space(gen, sp).Capacity, p+"capacity"),
				kb(hu, space(gen, sp).Used, p+"used"),
			}
		}
		s0, s1, e, o := spaceCols("S0C", "S0U", 0, 1), spaceCols("S1C", "S1U", 0, 2), spaceCols("EC", "EU", 0, 0), spaceCols("OC", "OU", 1, 0)
		cols := []column{s0[0], s1[0], s0[1], s1[1], e[0], e[1], o[0], o[1],
			kb("MC", j.Metaspace.Capacity, "sun.gc.metaspace.capacity"),
			kb("MU", j.Metaspace.Used, "sun.gc.metaspace.used"),
			kb("CCSC", j.ClassSpace.Capacity, "sun.gc.compressedclassspace.capacity"),
			kb("CCSU", j.ClassSpace.Used, "sun.gc.compressedclassspace.used"),
		}
		for i, h := range []string{"YGC", "FGC", "CGC"} {
			c := collector(i)
			missing := !has(fmt.Sprintf("sun.gc.collector.%d.invocations", i))
			cols = append(cols,
				column{header: h, value: float64(c.Invocations), missing: missing},
				column{header: h + "T", value: c.Time.Seconds(), digits: 3, missing: missing})
		}
		return append(cols, column{header: "GCT", value: j.GCTime().Seconds(), digits: 3})
	case "class":
		return []column{
			{header: "Loaded", value: float64(j.Classes.Loaded)},
			{header: "Bytes", value: float64(j.Classes.LoadedBytes) / 1024, digits: 1},
			{header: "Unloaded", value: float64(j.Classes.Unloaded)},
			{header: "Bytes", value: float64(j.Classes.UnloadedBytes) / 1024, digits: 1},
			{header: "Time", value: j.Classes.LoadTime.Seconds(), digits: 2},
		}
	}
	panic("unknown jstat option " + option)
}

// parseJstat splits jstat's header line and first sample into pairs.
func parseJstat(t *testing.T, out string) (headers, values []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		t.Fatalf("jstat printed %q, want a header and a sample", out)
	}
	headers, values = strings.Fields(lines[0]), strings.Fields(lines[1])
	if len(headers) != len(values) {
		t.Fatalf("jstat printed %d headers and %d values:\n%s", len(headers), len(values), out)
	}
	return headers, values
}

// compareJstat checks jstat's output against the snapshots taken just
// before and just after jstat ran. A value must print the same as from
// either snapshot or lie between them: the JVM may change a counter while
// jstat runs, but only within that interval.
func compareJstat(t *testing.T, option, out string, before, after *Snapshot) {
	t.Helper()
	for _, m := range jstatMismatches(t, option, out, before, after) {
		t.Error(m)
	}
}

func jstatMismatches(t *testing.T, option, out string, before, after *Snapshot) []string {
	t.Helper()
	headers, values := parseJstat(t, out)
	b, a := jstatColumns(before, option), jstatColumns(after, option)
	if len(b) != len(headers) {
		t.Fatalf("jstat -%s has columns %v, want %d", option, headers, len(b))
	}
	var bad []string
	for i, h := range headers {
		if b[i].header != h {
			bad = append(bad, fmt.Sprintf("jstat -%s column %d is %s, want %s", option, i, h, b[i].header))
			continue
		}
		got := values[i]
		if got == b[i].String() || got == a[i].String() {
			continue
		}
		v, err := strconv.ParseFloat(got, 64)
		half := 0.5 * math.Pow10(-b[i].digits)
		lo, hi := min(b[i].value, a[i].value)-half, max(b[i].value, a[i].value)+half
		if err != nil || b[i].missing || a[i].missing || v < lo || v > hi {
			bad = append(bad, fmt.Sprintf("jstat -%s %s: jstat printed %s, hsperf read %s before and %s after",
				option, h, got, b[i], a[i]))
		}
	}
	return bad
}

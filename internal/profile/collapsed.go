package profile

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteCollapsed writes one line per distinct stack, root first, frames
// separated by ';' and the summed value last ("stage 1;java.lang.Thread.run;
// ...;Work.spin 42"), as flamegraph.pl and speedscope read it. Lines are
// sorted, so equal profiles give equal files.
func WriteCollapsed(w io.Writer, p *Profile) error {
	sums := map[string]int64{}
	var b strings.Builder
	for i := range p.Samples {
		s := &p.Samples[i]
		b.Reset()
		b.WriteString(clean(s.rootLabel()))
		for j := len(s.Stack.Frames) - 1; j >= 0; j-- {
			b.WriteByte(';')
			b.WriteString(clean(frameName(s.Stack.Frames[j])))
		}
		sums[b.String()] += s.Value
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(a, b) })
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		bw.WriteString(k)
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(sums[k], 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// clean keeps a frame on its line and out of the separators: thread
// names are free text.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ';', '\n', '\r':
			return '_'
		}
		return r
	}, s)
}

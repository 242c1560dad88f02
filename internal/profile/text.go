package profile

import (
	"bufio"
	"fmt"
	"io"
)

// WriteText prints the top self frames of the whole profile and of each
// stage's tasks, n frames each: where the time (or the allocation) went,
// stage by stage.
func WriteText(w io.Writer, p *Profile, n int) error {
	bw := bufio.NewWriter(w)
	total := p.Total()
	fmt.Fprintf(bw, "%s profile: %d %s over %s\n", p.Kind, total, p.Kind.Unit(), p.End.Sub(p.Start).Round(100_000_000))
	section := func(title string, q *Profile) {
		t := q.Total()
		fmt.Fprintf(bw, "\n%s: %d %s (%.1f%% of all)\n", title, t, p.Kind.Unit(), 100*float64(t)/float64(max(total, 1)))
		for _, f := range q.Top(n) {
			fmt.Fprintf(bw, "  %5.1f%%  %s\n", 100*f.Share, f.Frame)
		}
	}
	section("all threads", p)
	for _, id := range p.Stages() {
		section(fmt.Sprintf("stage %d tasks", id), p.Stage(id))
	}
	return bw.Flush()
}

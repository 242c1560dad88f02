package eventlog

import (
	"bufio"
	"os"
	"testing"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// FuzzDecodeLine: no input may panic the decoder or the replay of its event.
func FuzzDecodeLine(f *testing.F) {
	for _, name := range []string{"app-20161115172038-0000", "app-20200706201101-0003", "local-1642039451826", "application_1555004656427_0144"} {
		fh, err := os.Open(sparktest.Path(f, "spark-events", name))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		seen := map[string]bool{}
		for sc.Scan() {
			ln := sc.Bytes()
			key := eventNameOf(ln)
			if !seen[key] {
				seen[key] = true
				f.Add(append([]byte(nil), ln...))
			}
		}
		fh.Close()
	}
	f.Add([]byte(`{"Event":"SparkListenerTaskEnd","Task Info":null,"Task Metrics":[]}`))
	f.Add([]byte(`{"Event":"SparkListenerJobStart","Stage Infos":[{"RDD Info":[{"Storage Level":7}]}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		d := NewDecoder()
		ev, err := d.DecodeLine(line)
		if err != nil {
			return
		}
		st := newState(newTestAttempt())
		st.apply(ev)
		st.apply(ev) // twice: duplicate events must not panic either
	})
}

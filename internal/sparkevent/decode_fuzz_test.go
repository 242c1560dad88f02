package sparkevent

import (
	"bufio"
	"os"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// fuzzSeeds adds one short line per event kind of some shared logs.
func fuzzSeeds(f *testing.F) {
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
			key := fastjson.GetString(ln, "Event")
			// Long lines (SQL plans) make the fuzzer spend its time
			// minimising; one short line per event kind covers the decoder.
			if !seen[key] && len(ln) <= 8<<10 {
				seen[key] = true
				f.Add(append([]byte(nil), ln...))
			}
		}
		fh.Close()
	}
	f.Add([]byte(`{"Event":"SparkListenerTaskEnd","Task Info":null,"Task Metrics":[]}`))
	f.Add([]byte(`{"Event":"SparkListenerJobStart","Stage Infos":[{"RDD Info":[{"Storage Level":7}]}]}`))
}

// FuzzDecodeLine: no input may panic the decoder. (FuzzApply, beside the
// replay, applies what it decodes.)
func FuzzDecodeLine(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		NewDecoder().DecodeLine(line)
	})
}

package sparktest

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// SeedLines returns fuzz seeds for the event-log parsers: one line per event
// kind of a few shared real Spark logs (2.0 to 3.2: standalone, YARN,
// local), each at most 8 KiB — long lines (SQL plans) make the fuzzer
// spend its time minimising — and two lines of a shape Spark never
// writes (null and mistyped objects).
func SeedLines(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range []string{"app-20161115172038-0000", "app-20200706201101-0003", "local-1642039451826", "application_1555004656427_0144"} {
		fh, err := os.Open(Path(t, "spark-events", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		seen := map[string]bool{}
		for sc.Scan() {
			ln := sc.Bytes()
			key := fastjson.GetString(ln, "Event")
			if !seen[key] && len(ln) <= 8<<10 {
				seen[key] = true
				out = append(out, append([]byte(nil), ln...))
			}
		}
		err = sc.Err()
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return append(out, []byte(`{"Event":"SparkListenerTaskEnd","Task Info":null,"Task Metrics":[]}`),
		[]byte(`{"Event":"SparkListenerJobStart","Stage Infos":[{"RDD Info":[{"Storage Level":7}]}]}`))
}

// EditedLog is a shared log (elem under the Spark test data, a plain JSON
// lines file) with every line passed through edit, which rewrites it or
// drops it: the same application with its code moved or a stage gone, for
// the tests of run comparison.
func EditedLog(t testing.TB, edit func(line string) (string, bool), elem ...string) string {
	t.Helper()
	raw, err := os.ReadFile(Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l2, keep := edit(l); keep {
			out = append(out, l2)
		}
	}
	return strings.Join(out, "\n")
}

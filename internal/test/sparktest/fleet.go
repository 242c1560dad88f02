package sparktest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fleetShapes are the shared logs a generated fleet copies: finished
// applications of several sizes (one to a few hundred tasks, 5–130 KB),
// from Spark 1.4 to 3.x, local, standalone and YARN.
var fleetShapes = []string{"local-1430917381535_1", "local-1426533911241", "application_1578436911597_0052",
	"application_1628109047826_1317105", "local-1422981759269", "application_1555004656427_0144",
	"app-20180109111548-0000", "application_1516285256255_0012"}

// GenerateFleet writes n finished event logs into dir, copies of the
// shared logs in turn, each under an application id of its own (the source's
// id with a -gNNNNNNN suffix, in the log and its file name), and returns
// their total size. Logs already there are kept, so a fleet grows.
func GenerateFleet(t testing.TB, dir string, n int) int64 {
	t.Helper()
	type shape struct {
		id   string
		body []byte
	}
	var shapes []shape
	for _, name := range fleetShapes {
		b, err := os.ReadFile(Path(t, "spark-events", name))
		if err != nil {
			t.Fatal(err)
		}
		id := name
		if i := bytes.Index(b, []byte(`"App ID":"`)); i >= 0 {
			rest := b[i+len(`"App ID":"`):]
			id = string(rest[:bytes.IndexByte(rest, '"')])
		}
		shapes = append(shapes, shape{id, b})
	}
	var total int64
	for i := range n {
		s := shapes[i%len(shapes)]
		id := fmt.Sprintf("%s-g%07d", s.id, i)
		path := filepath.Join(dir, id)
		if fi, err := os.Stat(path); err == nil {
			total += fi.Size()
			continue
		}
		body := bytes.ReplaceAll(s.body, []byte(`"`+s.id+`"`), []byte(`"`+id+`"`))
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		total += int64(len(body))
	}
	return total
}

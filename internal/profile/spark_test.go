package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/jfr"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestSparkStages profiles a real Spark driver (local[2], whose executor
// runs in the same JVM and names its task threads as a cluster's do)
// through a CPU-heavy Java UDF job and a shuffle-heavy job: the UDF's
// stage must spend most of its samples in BusyUDF.call, the shuffle's map
// stage in the shuffle writer, and neither in the other's code.
func TestSparkStages(t *testing.T) {
	// Not yet stable enough for CI. The recording now starts before the
	// jobs (RecordOptions.Started) and samples between dumps naming two
	// tasks of one stage count for it (Names.StageAt): on a quiet 2-core
	// machine the shuffle map stage went from 0–19 attributed samples to
	// 32–50. With so few, its shares swing: 2 of 6 quiet runs put 9–15 %
	// of them in shuffle code against 4–5 % of the UDF stage's (its
	// partial aggregate writes a shuffle too), short of the 5× asked.
	// Run it by hand until the shuffle stage is long enough on a quiet
	// machine for its shares to hold (issue 38).
	if os.Getenv("SPARKDX_PROFILE_SPARK") == "" {
		t.Skip("SPARKDX_PROFILE_SPARK=1 runs the real-Spark profile scenario (not yet stable for CI, issue 38)")
	}
	javac := sparktest.Program(t, "javac")
	line := sparktest.SparkLines(t)[0]
	classes := t.TempDir()
	cp := filepath.Join(line.Home, "jars", "*")
	if out, err := execOutput(javac, "-cp", cp, "-d", classes, "testdata/BusyUDF.java"); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	tmpl, err := os.ReadFile("testdata/stages.py")
	if err != nil {
		t.Fatal(err)
	}
	prog := strings.NewReplacer("%(classes)s", classes, "%(udfRows)d", "50000", "%(shuffleRows)d", "6000000", "%%", "%").Replace(string(tmpl))
	job, _ := sparktest.StartPySpark(t, line, prog)
	driver := childWith(t, job.PID, "org.apache.spark.deploy.SparkSubmit")

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	recorded := make(chan *Recorded, 1)
	started := make(chan struct{})
	go func() {
		r, err := Record(ctx, driver, RecordOptions{Duration: 3 * time.Minute, NamesEvery: 500 * time.Millisecond,
			Started: func() { close(started) }})
		if err != nil {
			t.Error(err)
		}
		recorded <- r
	}()
	select {
	case <-started:
	case r := <-recorded:
		t.Fatalf("the recording ended before it started: %+v", r)
	}
	fmt.Fprintln(job.Stdin, "go")
	var ids struct{ UDF, Shuffle []int }
	for job.Lines.Scan() {
		if err := json.Unmarshal(job.Lines.Bytes(), &ids); err == nil {
			break
		}
	}
	stop()
	r := <-recorded
	if r == nil || len(ids.UDF) == 0 || len(ids.Shuffle) == 0 {
		t.Fatalf("got stages %+v; want both jobs' stages and a recording", ids)
	}
	rec, err := jfr.Parse(r.JFR)
	if err != nil {
		t.Fatal(err)
	}
	p := Build(rec, CPU, r.Names)
	udf, shuffle := p.Stage(ids.UDF[0]), p.Stage(ids.Shuffle[0])
	nativeShuffle := Build(rec, Native, r.Names).Stage(ids.Shuffle[0])
	t.Logf("%d thread dumps (%s in the JVM); stages %v; udf stage %d: %d samples, top %+v; shuffle stage %d: %d samples (%d native), top %+v, native top %+v",
		r.Dumps, r.DumpTime, p.Stages(), ids.UDF[0], len(udf.Samples), udf.Top(3), ids.Shuffle[0], len(shuffle.Samples), len(nativeShuffle.Samples), shuffle.Top(5), nativeShuffle.Top(3))
	for _, c := range []struct {
		name     string
		q        *Profile
		in       func(*Sample) bool
		min, max float64
		samples  int
	}{
		{"UDF stage's samples in BusyUDF", udf, through("BusyUDF.call"), 0.6, 1, 20},
		{"UDF stage's samples in shuffle code", udf, inShuffle, 0, 0.1, 20},
		// Rows cost little to make but the map stage makes them too: a
		// fifth of its CPU samples in shuffle code under a load of 50.
		{"shuffle map stage's samples in shuffle code", shuffle, inShuffle, 0.15, 1, 20},
		// Its threads in native code: compressing (lz4, its checksum)
		// and writing the shuffle files. Native samples are few: 3 on a
		// quiet 2-core CI machine (all in lz4 and file writes), 5 or more
		// under load; 3 of them still say where the native time goes.
		{"shuffle map stage's native samples in shuffle code", nativeShuffle, inShuffle, 0.6, 1, 3},
		{"shuffle map stage's samples in BusyUDF", shuffle, through("BusyUDF."), 0, 0.02, 20},
	} {
		if len(c.q.Samples) < c.samples {
			t.Errorf("%s: %d samples, want at least %d", c.name, len(c.q.Samples), c.samples)
			continue
		}
		if got := share(c.q, c.in); got < c.min || got > c.max {
			t.Errorf("%s: %.1f%%, want %.0f%% to %.0f%%", c.name, 100*got, 100*c.min, 100*c.max)
		}
	}
	if got, udfGot := share(shuffle, inShuffle), share(udf, inShuffle); got < 5*udfGot {
		t.Errorf("shuffle code: %.1f%% of the shuffle stage, %.1f%% of the UDF stage; want 5 times more", 100*got, 100*udfGot)
	}
	if top := udf.Top(1); len(top) == 0 || top[0].Frame != "BusyUDF.call" {
		t.Errorf("UDF stage's top frame %+v, want BusyUDF.call", top)
	}
}

func share(q *Profile, in func(*Sample) bool) float64 {
	var n int64
	for i := range q.Samples {
		if in(&q.Samples[i]) {
			n += q.Samples[i].Value
		}
	}
	return float64(n) / float64(max(q.Total(), 1))
}

// through: the sample's stack passes through a frame named so.
func through(prefix string) func(*Sample) bool {
	return func(s *Sample) bool {
		for _, f := range s.Stack.Frames {
			if strings.HasPrefix(frameName(f), prefix) {
				return true
			}
		}
		return false
	}
}

// shuffleCode are the packages that write, sort, serialize and compress
// shuffle data.
var shuffleCode = []string{"org.apache.spark.shuffle.", "org.apache.spark.io.", "org.apache.spark.storage.",
	"org.apache.spark.serializer.", "org.apache.spark.util.collection.", "org.apache.spark.unsafe.", "net.jpountz.",
	"com.github.luben.", "org.xerial.snappy.", "org.apache.spark.sql.execution.UnsafeRowSerializer"}

// inShuffle: the innermost Spark or codec frame of the sample is shuffle
// code (the JDK frames it calls count with it); every task of a map
// stage runs under the shuffle writer, so "passes through" would not
// tell.
func inShuffle(s *Sample) bool {
	for _, f := range s.Stack.Frames {
		name := frameName(f)
		for _, p := range shuffleCode {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		if strings.HasPrefix(name, "org.apache.spark.") || strings.HasPrefix(name, "scala.") || strings.HasPrefix(name, "BusyUDF") {
			return false
		}
	}
	return false
}

// childWith finds the descendant of pid whose command line holds word.
func childWith(t *testing.T, pid int, word string) int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			n, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if strings.Contains(string(cmd), word) && descends(n, pid) {
				return n
			}
		}
	}
	t.Fatalf("no process under %d runs %s", pid, word)
	return 0
}

func descends(pid, ancestor int) bool {
	for i := 0; i < 32 && pid > 1; i++ {
		if pid == ancestor {
			return true
		}
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return false
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return false
}

func execOutput(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}

package diagnose_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestFirstWaveIsWarmUp: on one executor of 4 cores (local mode, one
// JVM), the stage's first wave of 4 tasks runs 6 s while its generated
// code compiles in each, and the 36 tasks after it 200 ms each on as much
// data: the stage's warm-up, not a straggler (a public local-mode log
// showed 12 such tasks, one per core, called critical). The baseline: the
// same 4 slow tasks in the stage's last wave are stragglers.
func TestFirstWaveIsWarmUp(t *testing.T) {
	for _, c := range []struct {
		name     string
		slowWave int
		want     diagnose.Severity // at least
	}{
		{"first wave", 0, diagnose.None},
		{"last wave", 9, diagnose.Warning},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newApp("firstwave", "spark.master", "local[4]")
			f.executor("driver", "host-1", 4, 0)
			var tasks []task
			at := int64(0)
			for w := 0; w < 10; w++ {
				dur := int64(200)
				if w == c.slowWave {
					dur = 6000
				}
				for k := 0; k < 4; k++ {
					tasks = append(tasks, task{exec: "driver", host: "host-1", index: 4*w + k, launch: at, dur: dur, inBytes: 1 << 20})
				}
				at += dur + 10
			}
			f.job(0, -1, &stage{id: 0, submit: sec, tasks: tasks})
			f.appEnd(at + 2*sec)
			a, _, err := replay.Read(context.Background(), bytes.NewReader(f.bytes()), replay.Options{Name: "firstwave", Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			fs := findingsOf(diagnose.Run(&diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)}, diagnose.All), "straggler-host")
			worst := diagnose.None
			for _, f := range fs {
				worst = max(worst, f.Severity)
			}
			if c.want == diagnose.None && worst > diagnose.Info || c.want != diagnose.None && worst < c.want {
				t.Errorf("straggler-host: got%s, want at most info for a first wave, at least %v otherwise", dump(fs), c.want)
			}
		})
	}
}

package sparktest_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestGrowLog replays the shared big log grown 1 and 2 times: each copy
// must add its jobs, stages, tasks and SQL executions under new ids (none
// merged into the first copy's), and the application must end once, after
// the last copy.
func TestGrowLog(t *testing.T) {
	const copies = 2
	one, a := replayGrown(t, 1), replayGrown(t, copies)
	tasks := func(a *model.Attempt) (n int) {
		for _, s := range a.Stages {
			n += s.TaskCount()
		}
		return n
	}
	if len(one.Stages) == 0 {
		t.Fatal("the big log replayed to no stages")
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"jobs", len(a.Jobs), copies * len(one.Jobs)},
		{"stages", len(a.Stages), copies * len(one.Stages)},
		{"tasks", tasks(a), copies * tasks(one)},
		{"SQL executions", len(a.SQL), copies * len(one.SQL)},
	} {
		if c.got != c.want {
			t.Errorf("%d copies: got %d %s, want %d", copies, c.got, c.what, c.want)
		}
	}
	if !a.Completed || a.EndTime <= one.EndTime {
		t.Errorf("%d copies: completed %v, end %d; want completed, ending after %d", copies, a.Completed, a.EndTime, one.EndTime)
	}
}

func replayGrown(t *testing.T, copies int) *model.Attempt {
	t.Helper()
	path := sparktest.GrownLog(t, t.TempDir(), copies)
	apps, err := replay.LoadApps(context.Background(), path, replay.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 1 || len(apps[0].Attempts) != 1 {
		t.Fatalf("got %d apps, want 1 with 1 attempt", len(apps))
	}
	return apps[0].Attempts[0]
}

// TestGrowLogDeterministic checks that growing is a function of its input.
func TestGrowLogDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparktest.GrowLog(&a, src, 2); err != nil {
		t.Fatal(err)
	}
	if err := sparktest.GrowLog(&b, src, 2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || a.Len() <= len(src) {
		t.Errorf("got %d and %d bytes from two runs on %d bytes, want equal and longer", a.Len(), b.Len(), len(src))
	}
}

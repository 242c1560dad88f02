package diagnose_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestLocalTasksAreNotWaiting: in local mode the driver runs the tasks,
// from the application's start. A log stitched from two runs (an
// executor "added" after the application ended, as in public test logs
// built that way) made the whole application "waiting for executors",
// critical, while its tasks ran on the driver; without its end event the
// application "ran" until that executor came. On real executors that
// come late, resource-wait still fires.
func TestLocalTasksAreNotWaiting(t *testing.T) {
	build := func(exec string, stitched, unfinished bool) *fx {
		f := newApp("local", "spark.master", "local[4]")
		f.emit(obj{"Event", "SparkListenerBlockManagerAdded", "Block Manager ID", obj{"Executor ID", "driver", "Host", "host-0", "Port", 40000},
			"Maximum Memory", 384093388, "Timestamp", t0, "Maximum Onheap Memory", 384093388, "Maximum Offheap Memory", 0})
		if exec != "driver" {
			f.executor(exec, "host-1", 4, 5*mn)
		}
		end := f.job(0, -1, &stage{id: 0, submit: 10 * sec, tasks: uniform(8, mn, 1, 4, func(i int, tk *task) {
			tk.exec, tk.host = exec, "host-0"
			if exec != "driver" {
				tk.launch += 5 * mn
			}
		})})
		if stitched {
			f.executor("1", "host-1", 8, 400*24*60*mn) // a year and more later
		}
		if !unfinished {
			f.appEnd(end + 5*sec)
		}
		return f
	}
	for _, c := range []struct {
		name                 string
		exec                 string
		stitched, unfinished bool
		fires                bool
	}{
		{"local mode", "driver", false, false, false},
		{"local mode with a stitched executor", "driver", true, false, false},
		{"unfinished, with a stitched executor", "driver", true, true, false},
		{"an executor 5 min late", "1", false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _, err := replay.Read(context.Background(), bytes.NewReader(build(c.exec, c.stitched, c.unfinished).bytes()), replay.Options{Name: "local", Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			r := analyze.Analyze(a)
			fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: r}, diagnose.All)
			fired := false
			for _, f := range fs {
				fired = fired || f.Rule == "resource-wait"
			}
			if c.exec == "driver" && r.DurationMs > 3*mn {
				t.Errorf("duration: got %d ms, want the 2 min 15 s the tasks ran (the stitched executor is not this run's)", r.DurationMs)
			}
			if fired != c.fires {
				t.Errorf("resource-wait fired %v, want %v (resource wait %d ms of %d)", fired, c.fires, r.Phases.ResourceWaitMs, r.DurationMs)
			}
		})
	}
}

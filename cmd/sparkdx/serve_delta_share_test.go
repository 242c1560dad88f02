package main

import (
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
)

// TestServesShareDelta: two serve processes ingest the same event logs
// into the same Delta tables at once; one is killed with SIGKILL while it
// writes and started again on its store. Every finished application
// attempt lands once in apps (and once per table as a transaction), every
// agent sample a serve acknowledged lands once, and the tables stay valid
// Delta tables.
func TestServesShareDelta(t *testing.T) {
	bin := buildSparkdx(t) // a live test: skips under -short
	logs, _ := fleetFixture(t, 2)
	lake, dataA := t.TempDir(), t.TempDir()
	extra := []string{"--delta", lake, "--delta-flush-interval", "100ms"}
	a := startServe(t, bin, logs, dataA, extra...)
	b := startServe(t, bin, logs, t.TempDir(), extra...)

	// Kill a while the two write: once the apps table has a few commits.
	apps := delta.NewDirStore(lake + "/" + delta.TableApps)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		names, _ := apps.List(t.Context(), "_delta_log/")
		if len(names) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no apps written in 60 s:\n%s\n%s", a.logs, b.logs)
		}
	}
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.cmd.Wait()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	pushed := pushSamples(t, b.url, "app-20261125000000-0001", []string{"1", "2"}, t0, 20)
	a = startServe(t, bin, logs, dataA, extra...) // restarted on its store
	a.waitIdle(t)
	pushed += pushSamples(t, a.url, "app-20261125000000-0002", []string{"1", "2"}, t0, 20)
	b.waitIdle(t)
	// The finished attempts, as serve lists them.
	var list []struct {
		ID       string `json:"id"`
		Attempts []struct {
			Completed bool `json:"completed"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal(b.get(t, "/api/v1/applications"), &list); err != nil {
		t.Fatal(err)
	}
	finished := 0
	for _, app := range list {
		for _, at := range app.Attempts {
			if at.Completed {
				finished++
			}
		}
	}
	for _, p := range []*serveProc{a, b} {
		p.cmd.Process.Signal(syscall.SIGTERM) // the final flush of samples
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("serve exit: %v\n%s", err, p.logs)
		}
	}

	rows := readRows[delta.AppRow](t, lake, delta.TableApps)
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.AppID+"/"+r.AttemptID]++
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("apps: %s written %d times", k, n)
		}
	}
	if len(rows) != finished {
		t.Errorf("apps: %d rows, want the %d finished attempts", len(rows), finished)
	}
	for _, name := range []string{delta.TableJobs, delta.TableStages, delta.TableExecutors, delta.TableFindings} {
		if got := len(checkTable(t, lake, name).Txns); got != finished {
			t.Errorf("%s: %d app transactions, want %d", name, got, finished)
		}
	}
	if got := checkTable(t, lake, delta.TableSamples).Rows; got != int64(pushed) {
		t.Errorf("samples: %d rows, want the %d pushed", got, pushed)
	}
	t.Logf("%d finished attempts written once by two serves (one killed and restarted), %d samples", finished, pushed)
}

package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// timeKeys are the listener events' fields holding epoch milliseconds.
var timeKeys = map[string]bool{"Timestamp": true, "Submission Time": true, "Completion Time": true, "Launch Time": true,
	"Finish Time": true, "Getting Result Time": true, "time": true}

// shiftTimes moves every time of a log's lines by delta ms (a run of the
// same application at another time).
func shiftTimes(t *testing.T, lines [][]byte, delta int64) [][]byte {
	t.Helper()
	var shift func(v any) any
	shift = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if n, ok := e.(json.Number); ok && timeKeys[k] {
					if ms, err := n.Int64(); err == nil && ms > 1e12 {
						x[k] = json.Number(strconv.FormatInt(ms+delta, 10))
					}
					continue
				}
				x[k] = shift(e)
			}
		case []any:
			for i := range x {
				x[i] = shift(x[i])
			}
		}
		return v
	}
	out := make([][]byte, 0, len(lines))
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(l))
		d.UseNumber()
		var ev any
		if err := d.Decode(&ev); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(shift(ev))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append(b, '\n'))
	}
	return out
}

// parseShown reads a duration as the pages print it (850ms, 12.3s, 4m05s).
func parseShown(s string) (time.Duration, error) {
	if m, sec, ok := strings.Cut(s, "m"); ok && strings.HasSuffix(sec, "s") {
		mins, err1 := strconv.Atoi(m)
		secs, err2 := strconv.Atoi(strings.TrimSuffix(sec, "s"))
		if err1 == nil && err2 == nil {
			return time.Duration(mins)*time.Minute + time.Duration(secs)*time.Second, nil
		}
	}
	return time.ParseDuration(s)
}

// TestRunningAppTicksChromium: an application running now (a real log
// moved to start 20 s ago, a third of it written, its .inprogress file
// growing no more) ticks to now in headless Chromium without a reload —
// the app page's duration, the timeline's span and the fleet row's
// duration grow with the clock while its events stay the same — and its
// duration is the wall time since its start, as the API says.
func TestRunningAppTicksChromium(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	data, err := os.ReadFile(sparktest.Path(t, "spark-events", tailApp))
	if err != nil {
		t.Fatal(err)
	}
	const runID = "local-2000000000002"
	lines := bytes.SplitAfter(bytes.ReplaceAll(data, []byte(tailApp), []byte(runID)), []byte("\n"))
	lines = lines[:len(lines)/3]
	var start int64
	for _, l := range lines {
		var ev struct {
			Event     string
			Timestamp int64
		}
		if json.Unmarshal(l, &ev) == nil && ev.Event == "SparkListenerApplicationStart" {
			start = ev.Timestamp
		}
	}
	started := time.Now().Add(-20 * time.Second)
	lines = shiftTimes(t, lines, started.UnixMilli()-start)
	live := t.TempDir()
	if err := os.WriteFile(filepath.Join(live, runID+".inprogress"), bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", live)
	ts.waitIdle(t)
	c := sparktest.StartPage(t, bin, 1280, 900)

	c.Navigate(ts.url + "/")
	fleetDur := func() string {
		return c.EvalString(`document.querySelector('tr[data-app="` + runID + `"] td:nth-child(5)').textContent`)
	}
	fleet0 := fleetDur()
	c.Click(`tr[data-app="` + runID + `"] a`)
	if got := c.EvalString(`document.body.dataset.live`); got != "1" {
		t.Fatalf("running app page: data-live %q, want 1", got)
	}
	type shown struct {
		Duration, Span, Events string
		Refreshed              string
	}
	read := func() shown {
		var s shown
		if err := json.Unmarshal(c.Eval(`({Duration: document.querySelector('.card.figure[data-name="wall time"] b').textContent,
			Span: document.querySelector("#gantt text:last-of-type").textContent,
			Events: [...document.querySelectorAll(".card")].find(d => d.firstChild.textContent == "Events").querySelector("b").textContent,
			Refreshed: document.body.dataset.refreshed || ""})`), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := read()
	d0, err := parseShown(before.Duration)
	if err != nil {
		t.Fatalf("duration %q: %v", before.Duration, err)
	}
	if since := time.Since(started); d0 < 15*time.Second || d0 > since+time.Second {
		t.Errorf("running app's duration %s, want the %s since it started", before.Duration, since.Round(time.Second))
	}
	c.Screenshot("running-tick-0")
	// Two refreshes later (one every 2 s), with no new event.
	var after shown
	deadline := time.Now().Add(15 * time.Second)
	for after = read(); time.Now().Before(deadline); after = read() {
		if d, err := parseShown(after.Duration); err == nil && d >= d0+3*time.Second && after.Refreshed != "" {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	d1, _ := parseShown(after.Duration)
	if d1 < d0+3*time.Second || after.Refreshed == "" {
		t.Errorf("app page duration %s -> %s in 15 s (refreshed %q): does not tick to now", before.Duration, after.Duration, after.Refreshed)
	}
	if after.Span == before.Span {
		t.Errorf("timeline span stayed %s while the app ran on", before.Span)
	}
	if after.Events != before.Events {
		t.Errorf("events %s -> %s: the log was not written to, the page must tick by the clock alone", before.Events, after.Events)
	}
	var apps []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &apps)
	if len(apps) != 1 || apps[0].Status != "running" {
		t.Fatalf("apps: %+v, want the one running app", apps)
	}
	if api := time.Duration(apps[0].DurationMs) * time.Millisecond; api < d1-100*time.Millisecond || api > d1+3*time.Second { // the page rounds to a tenth
		t.Errorf("page shows %s, the API says %s a moment later", after.Duration, api)
	}
	c.Screenshot("running-tick-1")
	c.CheckFits("running app page", 1280)

	c.Navigate(ts.url + "/")
	time.Sleep(2500 * time.Millisecond) // the fleet page refreshes itself too
	if got := fleetDur(); got == fleet0 {
		t.Errorf("fleet row's duration stayed %s", fleet0)
	}
	t.Logf("running app: %s -> %s on its page, fleet %s -> %s, timeline %s -> %s", before.Duration, after.Duration, fleet0, fleetDur(), before.Span, after.Span)
}

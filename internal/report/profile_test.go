package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/profile"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// profiledApp is a real log (stages 0, 1, 2; 2 the longest) with a real
// recording's CPU profile filed under its application id, as `sparkdx
// analyze --profiles DIR` finds it: internal/jfr's recording of
// Work.java (internal/profile's testdata/work.cpu.collapsed), whose task
// threads ran stage 1 (Work.spin) and stage 2 (Work.allocate). The pairing of the two is the test's; the stage ids
// are what each says. It returns the input and the collapsed file.
func profiledApp(t *testing.T) (*Input, string) {
	t.Helper()
	in := realInput(t, "spark-events/app-20200706201101-0003")
	data, err := os.ReadFile("../profile/testdata/work.cpu.collapsed")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, in.Report.App.ID+"-driver-pid42-20200706T201101Z.cpu.collapsed")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	in.Profile, in.ProfileFiles, err = profile.ReadAppProfiles(dir, in.Report.App.ID)
	if err != nil || len(in.ProfileFiles) != 1 {
		t.Fatalf("got files %v, %v; want the one written", in.ProfileFiles, err)
	}
	return in, file
}

// fileShare reads a collapsed file on its own: the part of stage's samples
// whose innermost frame is frame.
func fileShare(t *testing.T, file string, stage int, frame string) float64 {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var all, in float64
	for line := range strings.Lines(string(data)) {
		i := strings.LastIndexByte(line, ' ')
		v, _ := strconv.ParseFloat(strings.TrimSpace(line[i+1:]), 64)
		if strings.HasPrefix(line, fmt.Sprintf("stage %d;", stage)) {
			all += v
			if strings.HasSuffix(line[:i], ";"+frame) {
				in += v
			}
		}
	}
	return in / all
}

// profileLines are the stage lines of the text report's profile section,
// in order, and the section.
func profileLines(t *testing.T, in *Input) (order []string, lines map[string]string, sec string) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, []*Input{in}, TextOptions{Width: 200}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	_, sec, ok := strings.Cut(out, "Where the CPU went")
	if !ok {
		t.Fatalf("no profile section in:\n%s", out)
	}
	lines = map[string]string{}
	for _, l := range strings.Split(sec, "\n")[2:] {
		f := strings.Fields(l)
		if len(f) < 3 || f[0] != "stage" {
			continue
		}
		lines[f[1]] = l
		order = append(order, f[1])
	}
	return order, lines, sec
}

// TestProfileText: the text report names each profiled stage of the
// critical path (here 0, 1, 2: three jobs one after another; 0 has no
// samples) with its top frame and share as the file says, in the path's
// order; a stage without samples has no line.
func TestProfileText(t *testing.T) {
	in, file := profiledApp(t)
	if want := []int{0, 1, 2}; !slices.Equal(in.Result.CriticalPath.StageIDs, want) {
		t.Fatalf("got critical path %v, want %v", in.Result.CriticalPath.StageIDs, want)
	}
	order, lines, sec := profileLines(t, in)
	want1 := fmt.Sprintf("%.1f %% in Work.spin", 100*fileShare(t, file, 1, "Work.spin"))
	want2 := fmt.Sprintf("%.1f %% in Work.allocate", 100*fileShare(t, file, 2, "Work.allocate"))
	if strings.Join(order, ",") != "1,2" || !strings.Contains(lines["1"], want1) || !strings.Contains(lines["2"], want2) ||
		!strings.Contains(sec, "critical path's stages") {
		t.Errorf("got stage lines %q (order %v), want the critical path's: stage 1 with %q then stage 2 with %q; section:\n%s", lines, order, want1, want2, sec)
	}
}

// TestProfileStagesChoice: the stages follow the critical path, even
// when a longer stage is off it; with no path, or none of its stages
// profiled, the longest stages with samples, longest first (2 then 1).
func TestProfileStagesChoice(t *testing.T) {
	for _, tc := range []struct {
		path  []int
		want  string
		which string
	}{
		{[]int{0, 1}, "1", "critical path's stages"},
		{[]int{2, 1}, "2,1", "critical path's stages"},
		{nil, "2,1", "longest stages"},
		{[]int{0}, "2,1", "longest stages"},
	} {
		in, _ := profiledApp(t)
		in.Result.CriticalPath.StageIDs = tc.path
		order, _, sec := profileLines(t, in)
		if got := strings.Join(order, ","); got != tc.want || !strings.Contains(sec, tc.which) {
			t.Errorf("path %v: got stages %s, want %s of the %s; section:\n%s", tc.path, got, tc.want, tc.which, sec)
		}
	}
	in, _ := profiledApp(t)
	in.Result.CriticalPath.StageIDs = []int{0, 1, 2}
	if ids, onPath := profiledStages(in.Result, in.Profile, 1); !onPath || !slices.Equal(ids, []int{1}) {
		t.Errorf("one stage of the path: got %v (on path %t), want [1], the one with the most samples", ids, onPath)
	}
}

// TestProfileHTMLInChromium: the HTML report draws a flame graph for the
// application and one per profiled stage, inside its Content-Security-
// Policy, with Work.spin among stage 1's frames.
func TestProfileHTMLInChromium(t *testing.T) {
	in, _ := profiledApp(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []*Input{in}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, `<div class="flame" data-flame=`); n != 3 {
		t.Errorf("got %d flame graphs in the page, want 3: the application's, stage 2's and stage 1's", n)
	}
	chromium := sparktest.Program(t, "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := startBrowser(t, chromium)
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := b.load(ctx, "file://"+file, screenshotW, screenshotH, `JSON.stringify({
  frames: Array.from(document.querySelectorAll(".flame")).map(function (b) { return b.querySelectorAll(".fg-f").length; }),
  spin: Array.from(document.querySelectorAll("details.flame-stage")).filter(function (d) {
    return d.querySelector("summary").textContent.indexOf("stage 1:") === 0 &&
      Array.from(d.querySelectorAll(".fg-f")).some(function (e) { return e.textContent === "Work.spin"; });
  }).length
})`)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got.Problems {
		t.Errorf("page problem: %s", p)
	}
	frames, _ := got.Facts["frames"].([]any)
	drawn := len(frames) == 3
	for _, n := range frames {
		drawn = drawn && n.(float64) >= 3
	}
	if !drawn || got.Facts["spin"] != float64(1) {
		t.Errorf("got frames drawn per graph %v, stage 1's graph with Work.spin: %v; want 3 graphs of 3 frames or more, and 1", frames, got.Facts["spin"])
	}
}

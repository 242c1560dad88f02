package report

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/docs/recipes"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const xssName = "<script>alert('XSS')</script>"

// TestHTMLSelfContained renders every shared log and checks the page
// cannot reach the network and carries the log's text only escaped.
func TestHTMLSelfContained(t *testing.T) {
	// Anything that would make a browser fetch: src/href to a URL, CSS
	// url(...) or @import.
	fetch := regexp.MustCompile(`(?i)(src|href)\s*=\s*"?[a-z]+:|url\(|@import`)
	for _, rel := range realLogs {
		t.Run(goldenName(rel), func(t *testing.T) {
			in := realInput(t, rel)
			var buf bytes.Buffer
			if err := WriteHTML(&buf, []*Input{in}); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			if m := fetch.FindString(page); m != "" {
				t.Errorf("got %q in the page, want nothing that loads from the network", m)
			}
			if !strings.Contains(page, "Content-Security-Policy") {
				t.Errorf("got no Content-Security-Policy, want one forbidding network loads")
			}
			if got := strings.Count(page, "<script"); got != 1 {
				t.Errorf("got %d <script elements, want 1 (our own)", got)
			}
			for _, chart := range []string{"chart-app-0-phases", "chart-app-0-stages", "chart-app-0-memory", "chart-app-0-heatmap", "chart-app-0-skew"} {
				if !strings.Contains(page, `id="`+chart+`"`) {
					t.Errorf("got no %s section", chart)
				}
			}
		})
	}
}

// TestHTMLEscapesLogText checks the XSS app name of Spark's own test log,
// and hostile text in findings, come out as text.
func TestHTMLEscapesLogText(t *testing.T) {
	in := realInput(t, "spark-events/eventlog_v2_local-1766844910796")
	in.Report.Findings = append(in.Report.Findings, hostileFinding())
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []*Input{in}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{xssName, "<img src=x", `"><svg onload`} {
		if strings.Contains(page, bad) {
			t.Errorf("got %q unescaped in the page", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#39;XSS&#39;)&lt;/script&gt;") {
		t.Errorf("got no escaped app name in the page")
	}
}

func hostileFinding() diagnose.Finding {
	return diagnose.Finding{Rule: "data-skew", Severity: diagnose.Critical, Title: `<img src=x onerror=alert(1)>`,
		Detail: `"><svg onload=alert(2)>`, StageIDs: []int{0}, ExecutorIDs: []string{`"><b>`},
		Evidence: map[string]any{"<b>k</b>": `</table><script>alert(3)</script>`, "maxTaskMs": 1234},
		Parts: []diagnose.Part{{StageIDs: []int{0}, Severity: diagnose.Critical, Detail: `</td><script>alert(5)</script>`},
			{ExecutorIDs: []string{`<b>x</b>`}, Severity: diagnose.Info, Detail: "d"}},
		Recipe: `javascript:alert(4)`}
}

// browserLogs are loaded in Chromium: executor loss and memory metrics,
// SQL with stage executor metrics, many tasks, speculation, an incomplete
// attempt, and the XSS-named rolling log.
var browserLogs = []string{
	"extra/historical/spark-events/application_1538416563558_0014",
	"spark-events/app-20200706201101-0003",
	"spark-events/local-1430917381534",
	"spark-events/application_1628109047826_1317105",
	"extra/spark-events-broken/last-attempt-incomplete/application_1656321732247_0006_2",
	"spark-events/eventlog_v2_local-1766844910796",
}

// pageFacts is evaluated in the page after it loaded.
const pageFacts = `JSON.stringify({
  ready: document.body.getAttribute("data-ready"),
  title: document.title,
  h1: document.querySelector("h1") ? document.querySelector("h1").textContent : "",
  scripts: document.scripts.length,
  infoTotal: document.querySelectorAll("details.info-findings article.finding").length,
  infoShown: Array.from(document.querySelectorAll("details.info-findings article.finding")).filter(function (e) { return e.checkVisibility(); }).length,
  injected: document.querySelectorAll("img, iframe, object, embed, b, script:not(:last-of-type)").length,
  duplicateIds: (function () {
    var seen = {}, dup = 0;
    document.querySelectorAll("[id]").forEach(function (e) { if (seen[e.id]) dup++; seen[e.id] = true; });
    return dup;
  })(),
  charts: Array.from(document.querySelectorAll("figure.chart")).map(function (f) {
    var svg = f.querySelector("svg");
    return {id: f.id, width: svg ? svg.getBoundingClientRect().width : 0,
      shapes: svg ? svg.querySelectorAll("rect, polyline").length : 0, empty: !!f.querySelector(".empty")};
  }),
  sorted: (function () {
    var t = document.querySelector("table.sortable");
    if (!t) return null;
    t.tHead.rows[0].cells[4].click();
    var rows = t.tBodies[0].rows;
    return [parseFloat(rows[0].cells[4].getAttribute("data-v")), parseFloat(rows[rows.length - 1].cells[4].getAttribute("data-v"))];
  })()
})`

// The screenshot's size: tall enough that the charts stay in the picture
// below a long findings list.
const screenshotW, screenshotH = 1400, 3600

// TestHTMLInChromium loads reports in headless Chromium: no console errors,
// no uncaught exceptions, no dialogs (the XSS name must not run), the
// script ran, the charts have shapes and a width, and the screenshot is a
// real picture with the chart colours in it. Set SPARKDX_SCREENSHOTS=DIR
// to keep the screenshots for a look.
func TestHTMLInChromium(t *testing.T) {
	chromium := sparktest.Program(t, "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := startBrowser(t, chromium)
	dir := t.TempDir()
	for _, rel := range browserLogs {
		t.Run(goldenName(rel), func(t *testing.T) {
			in := realInput(t, rel)
			in.Report.Findings = append(in.Report.Findings, hostileFinding())
			file := filepath.Join(dir, goldenName(rel)+".html")
			var buf bytes.Buffer
			if err := WriteHTML(&buf, []*Input{in}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := b.load(ctx, "file://"+file, screenshotW, screenshotH, pageFacts)
			if err != nil {
				t.Fatal(err)
			}
			if keep := os.Getenv("SPARKDX_SCREENSHOTS"); keep != "" {
				os.WriteFile(filepath.Join(keep, goldenName(rel)+".png"), got.Screenshot, 0o644)
			}
			for _, p := range got.Problems {
				t.Errorf("page problem: %s", p)
			}
			checkFacts(t, in, got.Facts)
			checkScreenshot(t, got.Screenshot, in.Result.Phases.ComputeMs > 0)
		})
	}
}

// TestDiffHTMLInChromium loads diff pages: the run with a stage removed,
// and the XSS-named log against itself.
func TestDiffHTMLInChromium(t *testing.T) {
	chromium := sparktest.Program(t, "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := startBrowser(t, chromium)
	dir := t.TempDir()
	orig := realInput(t, "spark-events/local-1430917381534")
	xss := realInput(t, "spark-events/eventlog_v2_local-1766844910796")
	xss.Report.Findings = append(xss.Report.Findings, hostileFinding())
	for _, c := range []struct {
		name          string
		before, after *Input
	}{
		{"stage-removed", orig, editedInput(t, func(l string) (string, bool) { return l, !strings.Contains(l, `"Stage ID":1,`) })},
		{"xss", xss, xss},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteDiffHTML(&buf, compare(c.before, c.after), c.before, c.after); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), xssName) {
				t.Errorf("got the XSS name unescaped in the diff page")
			}
			file := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := b.load(ctx, "file://"+file, screenshotW, screenshotH, pageFacts)
			if err != nil {
				t.Fatal(err)
			}
			if keep := os.Getenv("SPARKDX_SCREENSHOTS"); keep != "" {
				os.WriteFile(filepath.Join(keep, "diff-"+c.name+".png"), got.Screenshot, 0o644)
			}
			for _, p := range got.Problems {
				t.Errorf("page problem: %s", p)
			}
			f := got.Facts
			if f["ready"] != "1" || f["scripts"] != 1.0 || f["injected"] != 0.0 || f["duplicateIds"] != 0.0 {
				t.Errorf("got ready %v, scripts %v, injected %v, duplicate ids %v; want 1, 1, 0, 0",
					f["ready"], f["scripts"], f["injected"], f["duplicateIds"])
			}
			if f["h1"] != "Before → after" {
				t.Errorf("got first heading %q, want the comparison first", f["h1"])
			}
			charts, _ := f["charts"].([]any)
			if len(charts) != 12 {
				t.Fatalf("got %d charts, want 2 for the comparison and 5 per run", len(charts))
			}
			for _, ch := range charts[:2] {
				ch := ch.(map[string]any)
				if n, _ := ch["shapes"].(float64); ch["empty"] == true || n < 2 {
					t.Errorf("chart %v: got %v shapes (empty %v), want bars of both runs", ch["id"], n, ch["empty"])
				}
			}
			checkScreenshot(t, got.Screenshot, true)
		})
	}
}

func checkFacts(t *testing.T, in *Input, f map[string]any) {
	t.Helper()
	if f["ready"] != "1" {
		t.Errorf("got data-ready %v, want 1: the page script did not finish", f["ready"])
	}
	if n, _ := f["scripts"].(float64); n != 1 {
		t.Errorf("got %v scripts in the DOM, want 1", f["scripts"])
	}
	info := 0
	for _, x := range in.Report.Findings {
		if x.Severity == diagnose.Info {
			info++
		}
	}
	if n, _ := f["infoTotal"].(float64); int(n) != info {
		t.Errorf("got %v info findings on the page, want the report's %d", f["infoTotal"], info)
	}
	if n, _ := f["infoShown"].(float64); n != 0 {
		t.Errorf("got %v info findings shown, want them collapsed", n)
	}
	if n, _ := f["duplicateIds"].(float64); n != 0 {
		t.Errorf("got %v duplicate element ids, want 0", n)
	}
	if n, _ := f["injected"].(float64); n != 0 {
		t.Errorf("got %v elements injected from log text, want 0", f["injected"])
	}
	wantH1 := in.Report.App.Name
	if wantH1 == "" {
		wantH1 = in.Report.App.ID
	}
	if f["h1"] != wantH1 {
		t.Errorf("got heading %q, want the app name %q as text", f["h1"], wantH1)
	}
	charts, _ := f["charts"].([]any)
	if len(charts) != 5 {
		t.Fatalf("got %d charts, want 5", len(charts))
	}
	drawn := map[string]bool{}
	for _, c := range charts {
		c := c.(map[string]any)
		if c["empty"] == true {
			continue
		}
		drawn[c["id"].(string)] = true
		if w, _ := c["width"].(float64); w < 600 {
			t.Errorf("chart %v: got width %v px, want at least 600", c["id"], w)
		}
		if n, _ := c["shapes"].(float64); n < 3 {
			t.Errorf("chart %v: got %v shapes, want at least 3", c["id"], n)
		}
	}
	if !drawn["chart-app-0-phases"] {
		t.Errorf("got no phase Gantt drawn, want one")
	}
	if len(in.Result.Stages) > 0 && (!drawn["chart-app-0-stages"] || !drawn["chart-app-0-heatmap"]) {
		t.Errorf("got charts %v drawn, want the stage timeline and the duration heatmap for an app with stages", drawn)
	}
	if s, ok := f["sorted"].([]any); ok && len(s) == 2 {
		if s[0].(float64) < s[1].(float64) {
			t.Errorf("after clicking 'duration': first row %v < last row %v, want descending", s[0], s[1])
		}
	}
}

// checkScreenshot decodes the PNG and checks it is the full window, not
// blank, and (when the app computed) shows the compute colour of the
// phase chart.
func checkScreenshot(t *testing.T, data []byte, wantCompute bool) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	bounds := img.Bounds()
	if bounds.Dx() != screenshotW || bounds.Dy() != screenshotH {
		t.Errorf("got screenshot %v, want %d×%d", bounds.Size(), screenshotW, screenshotH)
	}
	var nonWhite, compute, wait int
	colors := map[color.RGBA]bool{}
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			c := rgba(img, x, y)
			if c.R < 240 || c.G < 240 || c.B < 240 {
				nonWhite++
			}
			if len(colors) < 5000 {
				colors[c] = true
			}
			if near(c, color.RGBA{0, 158, 115, 255}) {
				compute++
			}
			if near(c, color.RGBA{230, 159, 0, 255}) {
				wait++
			}
		}
	}
	total := bounds.Dx() * bounds.Dy() / 4
	if share := float64(nonWhite) / float64(total); share < 0.02 {
		t.Errorf("got %.1f%% non-white pixels, want at least 2%%: the page looks empty", 100*share)
	}
	if len(colors) < 50 {
		t.Errorf("got %d distinct colours, want at least 50", len(colors))
	}
	if wantCompute && compute < 100 {
		t.Errorf("got %d compute-coloured pixels, want the phase chart's compute bars", compute)
	}
	t.Logf("screenshot: %d%% non-white, %d colours, %d compute and %d wait pixels (sampled)",
		100*nonWhite/total, len(colors), compute, wait)
}

func rgba(img image.Image, x, y int) color.RGBA {
	r, g, b, a := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func near(a, b color.RGBA) bool {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return d(a.R, b.R)+d(a.G, b.G)+d(a.B, b.B) < 24
}

func ExampleWriteHTML() {
	var buf bytes.Buffer
	err := WriteHTML(&buf, nil)
	fmt.Println(err, strings.HasPrefix(buf.String(), "<!DOCTYPE html>"))
	// Output: <nil> true
}

// TestHTMLInlinesRecipes: each finding carries its recipe's section inline
// (the page is one file; the reader still learns what to do).
func TestHTMLInlinesRecipes(t *testing.T) {
	in := realInput(t, "spark-events/local-1422981780767")
	if len(in.Report.Findings) == 0 {
		t.Fatal("the log has no finding")
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, []*Input{in}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, f := range in.Report.Findings {
		want, err := recipes.Read(f.Recipe)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(want, "\n")
		if !strings.Contains(page, `<details class="recipe">`) || !strings.Contains(page, template.HTMLEscapeString(first)) {
			t.Errorf("finding %s: the page lacks its recipe section %q", f.Rule, first)
		}
	}
}

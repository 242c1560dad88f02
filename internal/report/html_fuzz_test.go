package report

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
)

// FuzzLogText feeds arbitrary text from a "log" (app name, user, stage
// name, finding text, evidence) through both renderers. The HTML page,
// parsed as a browser would, must hold exactly our one script and no
// event-handler attribute; the text report must hold no control
// character but newlines.
func FuzzLogText(f *testing.F) {
	in := realInput(f, "spark-events/eventlog_v2_local-1766844910796")
	for _, s := range []string{xssName, `"><img src=x onerror=alert(1)>`, "</style><script>alert(1)</script>",
		"\x1b[2J\x1b]0;t\x07", "a\nb\r\tc", "</svg><svg onload=alert(1)>", "{{.}}", "\u202e\u0000"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, name, detail string) {
		c := *in
		rep := *in.Report
		c.Report = &rep
		rep.App.Name, rep.App.User, rep.Log.Path = name, detail, name
		rep.Findings = []diagnose.Finding{{Rule: name, Severity: diagnose.Warning, Title: name, Detail: detail,
			ExecutorIDs: []string{detail}, Evidence: map[string]any{name: detail, "n": []string{detail}}, Recipe: detail}}
		res := *in.Result
		res.Stages = append([]analyze.Stage(nil), res.Stages...)
		for i := range res.Stages {
			res.Stages[i].Name = detail
		}
		c.Result = &res

		var page bytes.Buffer
		if err := WriteHTML(&page, []*Input{&c}); err != nil {
			t.Fatal(err)
		}
		checkDOM(t, page.Bytes())

		var txt bytes.Buffer
		if err := WriteText(&txt, []*Input{&c}, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		for i, r := range txt.String() {
			if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
				t.Fatalf("text report: control character %U at offset %d: %q", r, i, txt.String()[max(i-80, 0):min(i+40, txt.Len())])
			}
		}
	})
}

// checkDOM parses a page and fails on any script but ours or any on*
// attribute.
func checkDOM(t *testing.T, page []byte) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	scripts := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script":
				scripts++
			case "iframe", "object", "embed", "img", "base", "link", "meta":
				if n.Data != "meta" {
					t.Fatalf("got a <%s> element from log text", n.Data)
				}
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					t.Fatalf("got attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
				}
				if (a.Key == "href" && !strings.HasPrefix(a.Val, "#")) || (a.Key == "src" && a.Val != "") {
					t.Fatalf("got %s=%q on <%s>", a.Key, a.Val, n.Data)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts != 1 {
		t.Fatalf("got %d <script> elements, want our 1", scripts)
	}
}

package profile

import (
	"encoding/json"
	"html/template"
	"io"
	"slices"
	"strings"
)

// node is a frame of the flame graph: its name, value (the samples under
// it) and children, encoded as [name, value, [children]] to keep the
// page small.
type node struct {
	name     string
	value    int64
	children map[string]*node
}

func (n *node) child(name string) *node {
	c, ok := n.children[name]
	if !ok {
		c = &node{name: name, children: map[string]*node{}}
		n.children[name] = c
	}
	return c
}

// minShare is the smallest part of the total a node must have to be
// drawn: narrower than a pixel on any screen, and it keeps a long
// profile's page to a few MB.
const minShare = 1.0 / 20000

func (n *node) MarshalJSON() ([]byte, error) {
	return json.Marshal(n.encode(int64(float64(n.value) * minShare)))
}

func (n *node) encode(floor int64) []any {
	kids := make([]*node, 0, len(n.children))
	for _, c := range n.children {
		if c.value > floor {
			kids = append(kids, c)
		}
	}
	slices.SortFunc(kids, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	enc := make([]any, len(kids))
	for i, c := range kids {
		enc[i] = c.encode(floor)
	}
	return []any{n.name, n.value, enc}
}

// tree folds the samples into a tree rooted at "all", then each sample's
// stage or thread, then its frames from the outermost.
func tree(p *Profile) *node {
	root := &node{name: "all", children: map[string]*node{}}
	for i := range p.Samples {
		s := &p.Samples[i]
		root.value += s.Value
		n := root.child(s.rootLabel())
		n.value += s.Value
		for j := len(s.Stack.Frames) - 1; j >= 0; j-- {
			n = n.child(frameName(s.Stack.Frames[j]))
			n.value += s.Value
		}
	}
	return root
}

// FlameData is the flame graph of p as the JSON FlameJS's sdxFlame reads:
// [name, value, [children]] from "all" down.
func FlameData(p *Profile) ([]byte, error) { return json.Marshal(tree(p)) }

// WriteHTML writes a self-contained flame graph page (no outside file,
// font or script): click a frame to zoom into it, type in the search box
// to colour the frames that match and read their share.
func WriteHTML(w io.Writer, p *Profile, title string) error {
	data, err := FlameData(p)
	if err != nil {
		return err
	}
	return flamePage.Execute(w, struct {
		Title string
		Unit  string
		CSS   template.CSS
		JS    template.JS
		Data  template.JS
	}{title, p.Kind.Unit(), FlameCSS, FlameJS, template.JS(data)})
}

// FlameCSS styles the flame graphs sdxFlame draws, on this package's page
// and on pages that embed them (analyze's HTML report).
const FlameCSS template.CSS = `
.fg-bar{display:flex;gap:12px;align-items:center;margin-bottom:8px}
.fg-q{width:22em;padding:3px}
.fg-graph{position:relative;width:100%;overflow:hidden}
.fg-f{position:absolute;height:17px;line-height:17px;font-size:12px;overflow:hidden;white-space:nowrap;color:#222;
  text-overflow:ellipsis;box-sizing:border-box;border:1px solid #fff;padding:0 3px;cursor:pointer;border-radius:2px}
.fg-f.hit{background:#d946ef !important;color:#fff}
.fg-info{color:#555;min-height:1.2em}
`

// FlameJS defines sdxFlame(box, data, unit), which draws the flame graph
// of FlameData's data into the element box with its own search box: one
// script for any number of graphs on a page.
const FlameJS template.JS = `
function sdxFlame(box, data, unit) {
  "use strict";
  const el = (tag, cls) => { const e = document.createElement(tag); if (cls) e.className = cls; return e; };
  const bar = el("div", "fg-bar"), q = el("input", "fg-q"), match = el("span"), reset = el("button");
  q.type = "search"; q.placeholder = "search frames (regular expression)"; q.setAttribute("aria-label", "search frames");
  reset.type = "button"; reset.textContent = "reset zoom";
  bar.append(q, match, reset);
  const info = el("div", "fg-info"), graph = el("div", "fg-graph");
  graph.setAttribute("role", "img"); graph.setAttribute("aria-label", "flame graph");
  box.textContent = "";
  box.append(bar, info, graph);
  let zoom = data, re = null;
  function hue(name) {
    let h = 0;
    for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    if (/^(java|javax|jdk|sun)\./.test(name)) return "hsl(" + (200 + h % 30) + ",55%,72%)";
    if (/^(org\.apache\.spark|scala)\./.test(name)) return "hsl(" + (30 + h % 25) + ",75%,65%)";
    return "hsl(" + (h % 20) + ",70%,62%)";
  }
  const pct = (v) => (100 * v / Math.max(data[1], 1)).toFixed(2) + "%";
  function find(n, target, path) {
    if (n === target) return path.concat([n]);
    for (const c of n[2]) { const p = find(c, target, path.concat([n])); if (p) return p; }
    return null;
  }
  function draw() {
    graph.textContent = "";
    const path = find(data, zoom, []) || [data];
    let depth = 0;
    const rect = (n, x, w, d) => {
      if (w < 0.05) return;
      const e = el("div", "fg-f");
      e.style.left = x + "%"; e.style.width = w + "%"; e.style.top = (d * 18) + "px";
      e.style.background = hue(n[0]);
      e.textContent = n[0];
      e.title = n[0] + " — " + n[1] + " " + unit + " (" + pct(n[1]) + ")";
      if (re && re.test(n[0])) e.classList.add("hit");
      e.onclick = () => { zoom = n; draw(); };
      e.onmouseover = () => { info.textContent = e.title; };
      graph.appendChild(e);
      depth = Math.max(depth, d);
      let cx = x;
      for (const c of n[2]) { const cw = w * c[1] / Math.max(n[1], 1); rect(c, cx, cw, d + 1); cx += cw; }
    };
    path.slice(0, -1).forEach((n, i) => rect([n[0], n[1], []], 0, 100, i));
    rect(zoom, 0, 100, path.length - 1);
    graph.style.height = ((depth + 1) * 18) + "px";
    if (re) {
      const seen = (n) => re.test(n[0]) ? n[1] : n[2].reduce((s, c) => s + seen(c), 0);
      match.textContent = "matched " + pct(seen(data));
    } else match.textContent = "";
  }
  q.oninput = () => { try { re = q.value ? new RegExp(q.value) : null; } catch (e) { re = null; } draw(); };
  reset.onclick = () => { zoom = data; draw(); };
  draw();
}
`

// FlameInit draws a flame graph in every element of class "flame" with
// a data-flame attribute (FlameData) and a data-unit one, once FlameJS
// is in: pages that cannot run inline scripts serve both as a file.
const FlameInit template.JS = `
document.querySelectorAll(".flame[data-flame]").forEach((b) => sdxFlame(b, JSON.parse(b.dataset.flame), b.dataset.unit));
`

var flamePage = template.Must(template.New("flame").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:13px system-ui,sans-serif;margin:12px;color:#222}
h1{font-size:16px;margin:0 0 8px}
{{.CSS}}</style></head><body>
<h1>{{.Title}}</h1>
<div id="flame"></div>
<script>{{.JS}}
sdxFlame(document.getElementById("flame"), {{.Data}}, {{.Unit}});
</script></body></html>
`))

package heapreport

import (
	"fmt"
	"html/template"
	"io"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
	"github.com/sparkdx/sparkdx/internal/units"
)

// WriteHTML writes one self-contained page (no script, nothing fetched):
// the dominator tree as nested <details>, paths to GC roots, Spark owners,
// largest objects by holder and the class histogram.
func WriteHTML(w io.Writer, r Report, top int) error {
	if top <= 0 {
		top = 30
	}
	h, ret := r.Hist, r.Retained
	inst, bytes := hprof.Totals(h.Classes)
	data := map[string]any{
		"Path":      r.Path,
		"Version":   h.Version,
		"Layout":    fmt.Sprintf("%v (%s)", h.Layout, h.LayoutEvidence),
		"Read":      units.Bytes(h.BytesRead),
		"Instances": inst,
		"Bytes":     units.Bytes(bytes),
		"Ret":       ret,
		"Classes":   firstN(h.Classes, top),
		"Growth":    r.RetainedGrowth(),
		"BasePath":  r.BasePath,
		"Truncated": h.TruncatedAt,
	}
	if ret != nil {
		data["Dominators"] = firstN(ret.Dominators, top)
		data["ByClass"] = firstN(ret.ByClass, top)
		data["Largest"] = firstN(ret.Largest, top)
	}
	return heapPage.Execute(w, data)
}

var heapPage = template.Must(template.New("heap").Funcs(template.FuncMap{
	"bytes": func(b int64) string { return units.Bytes(b) },
	"pct": func(a, b int64) string {
		return fmt.Sprintf("%.1f%%", pct(a, b))
	},
	"hex": func(id uint64) string { return fmt.Sprintf("0x%x", id) },
	"len": lengthNote,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>sparkdx heap — {{.Path}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1d232b;max-width:1200px}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #d5dbe3}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}tr:nth-child(even){background:#f4f6f9}
details{margin-left:1.2em}summary{cursor:pointer}.cls{font-family:ui-monospace,monospace}
.path{color:#4a5562;font-size:.92em;margin:.2em 0 .4em 1.2em}.muted{color:#6b7480}
.bar{display:inline-block;height:.7em;background:#3a7bd5;margin-right:.4em;vertical-align:middle}
</style></head><body>
<h1>Heap dump {{.Path}}</h1>
<p class="muted">{{.Version}}, {{.Read}} read; layout {{.Layout}}</p>
{{if not .Ret}}<p>The dump ends inside a record at byte {{.Truncated}}: the dominator tree needs every object, so this page shows the histogram of what was read.</p>{{else}}
<p><b>{{.Ret.Reachable}}</b> of {{.Ret.Objects}} objects are reachable from {{.Ret.Roots}} GC roots and retain <b>{{bytes .Ret.ReachableBytes}}</b>{{if .Ret.Unreachable}}; {{.Ret.Unreachable}} unreachable objects ({{bytes .Ret.UnreachableBytes}}) are garbage the dump kept{{end}}.
{{if .Ret.MissingRefs}}<span class="muted">{{.Ret.MissingRefs}} references point at objects the dump does not hold and are left out.</span>{{end}}</p>
{{if .Ret.Owners}}<h2>Retained by Spark owner</h2>
<table><tr><th class="n">retained</th><th>owner</th><th class="n">objects</th><th>what it is</th></tr>
{{range .Ret.Owners}}<tr><td class="n">{{bytes .Retained}}</td><td>{{.Owner}}</td><td class="n">{{.Objects}}</td><td>{{.Note}}</td></tr>
{{end}}</table>{{end}}
<h2>Dominator tree</h2>
<p class="muted">Top-level dominators: objects no single other object holds. Retained is what a collection would free if the object went. Open a line for what it holds.</p>
{{$total := .Ret.ReachableBytes}}
{{range .Dominators}}<details><summary><span class="bar" style="width:{{pct .Retained $total}}"></span><b>{{bytes .Retained}}</b> {{pct .Retained $total}} <span class="cls">{{.Class}}</span> {{hex .ID}}{{len .Length}}</summary>
{{if .Path}}<div class="path">path from a GC root [{{.Root}}]: {{range $i, $s := .Path}}{{if $i}} → {{end}}<span class="cls">{{$s.Class}}</span>{{if $s.Field}} .{{$s.Field}}{{end}}{{end}}</div>{{end}}
{{template "kids" .Children}}</details>
{{end}}
<h2>Retained by top-level dominator class</h2>
<table><tr><th class="n">objects</th><th class="n">retained</th><th>class</th></tr>
{{range .ByClass}}<tr><td class="n">{{.Objects}}</td><td class="n">{{bytes .Retained}}</td><td class="cls">{{.Class}}</td></tr>
{{end}}</table>
{{if .Largest}}<h2>Largest objects by holder</h2>
<table><tr><th class="n">count</th><th>class</th><th class="n">bytes</th><th>held by</th></tr>
{{range .Largest}}<tr><td class="n">{{.Count}}</td><td class="cls">{{.Class}}</td><td class="n">{{bytes .Bytes}}</td><td><span class="cls">{{.Holder.Class}}</span> {{hex .Holder.ID}} (retains {{bytes .Holder.Retained}}){{if .Holder.Path}}<div class="path">[{{.Holder.Root}}] {{range $i, $s := .Holder.Path}}{{if $i}} → {{end}}{{$s.Class}}{{if $s.Field}} .{{$s.Field}}{{end}}{{end}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .BasePath}}<h2>Retained growth since {{.BasePath}}</h2>
<table><tr><th class="n">Δ objects</th><th class="n">Δ bytes</th><th>top-level dominator class</th></tr>
{{range .Growth}}<tr><td class="n">{{.InstancesDelta}}</td><td class="n">{{.BytesDelta}}</td><td class="cls">{{.Class}}</td></tr>
{{end}}</table>{{end}}
{{end}}
<h2>Class histogram</h2>
<p class="muted">{{.Instances}} objects, {{.Bytes}} (as jcmd GC.class_histogram counts them)</p>
<table><tr><th class="n">instances</th><th class="n">bytes</th><th>class</th></tr>
{{range .Classes}}<tr><td class="n">{{.Instances}}</td><td class="n">{{.Bytes}}</td><td class="cls">{{.Class}}</td></tr>
{{end}}</table>
</body></html>
{{define "kids"}}{{range .}}<details><summary><b>{{bytes .Retained}}</b> {{if .Field}}.{{.Field}} → {{end}}<span class="cls">{{.Class}}</span> {{hex .ID}}{{len .Length}} <span class="muted">(own {{bytes .Shallow}})</span></summary>{{template "kids" .Children}}</details>
{{end}}{{end}}
`))

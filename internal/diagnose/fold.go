package diagnose

import "fmt"

// foldExecutors turns per-executor findings of one rule into one finding
// per severity, listing the executors worst first: the same pressure on
// ten executors is one problem of how they are sized, not ten. fs must be
// ordered worst first and name one executor each; the folded finding
// keeps the worst one's detail and evidence, prefixed with the count, and
// lists every executor's evidence under "executors". what names the
// problem for the count: "came close to their memory limit".
func foldExecutors(fs []Finding, what string) []Finding {
	var out []Finding
	for _, sev := range []Severity{Critical, Warning, Info} {
		var at []Finding
		for _, f := range fs {
			if f.Severity == sev {
				at = append(at, f)
			}
		}
		if len(at) == 0 {
			continue
		}
		f := at[0]
		if len(at) > 1 {
			ev := make(map[string]any, len(f.Evidence)+1)
			for k, v := range f.Evidence {
				ev[k] = v
			}
			var ids []string
			var rows []map[string]any
			for _, x := range at {
				ids = append(ids, x.ExecutorIDs...)
				rows = append(rows, x.Evidence)
			}
			ev["executors"] = rows
			f.Evidence, f.ExecutorIDs = ev, ids
			f.Detail = fmt.Sprintf("%d executors %s. Worst: %s", len(at), what, f.Detail)
		}
		out = append(out, f)
	}
	return out
}

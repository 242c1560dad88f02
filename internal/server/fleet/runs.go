package fleet

import (
	"cmp"
	"errors"
	"net/url"
	"strings"

	"github.com/sparkdx/sparkdx/internal/server/store"
)

// RunSummary is one orchestrator run (an Airflow DAG run, a
// spark.sparkdx.run value) over the application attempts that name it.
type RunSummary struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source"`
	// Apps counts applications; Attempts their attempts.
	Apps     int    `json:"apps"`
	Attempts int    `json:"attempts"`
	Status   string `json:"status"` // running (an app runs) | incomplete (an app ended without its end event) | completed
	// StartTime is the first application's start, EndTime the last one's
	// end (-1 while one runs), epoch ms.
	StartTime  int64         `json:"startTime"`
	EndTime    int64         `json:"endTime"`
	DurationMs int64         `json:"durationMs"`
	Findings   int           `json:"findings"`
	Worst      *FleetFinding `json:"worstFinding"`
}

// Href is the run's page.
func (r RunSummary) Href() string { return runHref(r.ID) }

func runHref(id string) string { return "/runs/" + url.PathEscape(id) }

// RunHref is the page of the application's run, "" when it has none.
func (a AppSummary) RunHref() string {
	if a.Run == nil {
		return ""
	}
	return runHref(a.Run.ID)
}

// Runs groups application attempts by run; attempts without one are in
// none. Each run keeps its attempts in the order given.
func Runs(apps []AppSummary) ([]RunSummary, map[string][]AppSummary) {
	byID := map[string][]AppSummary{}
	var order []string
	for _, a := range apps {
		if a.Run == nil {
			continue
		}
		if _, ok := byID[a.Run.ID]; !ok {
			order = append(order, a.Run.ID)
		}
		byID[a.Run.ID] = append(byID[a.Run.ID], a)
	}
	out := make([]RunSummary, 0, len(order))
	for _, id := range order {
		out = append(out, runSummary(byID[id]))
	}
	return out, byID
}

// runSummary sums up the attempts of one run (at least one).
func runSummary(atts []AppSummary) RunSummary {
	r := RunSummary{ID: atts[0].Run.ID, Name: atts[0].Run.Name, Source: atts[0].Run.Source, Status: "completed",
		Attempts: len(atts)}
	seen := map[string]bool{}
	running := false
	for _, a := range atts {
		if !seen[a.ID] {
			seen[a.ID] = true
			r.Apps++
		}
		if r.StartTime == 0 || a.StartTime > 0 && a.StartTime < r.StartTime {
			r.StartTime = a.StartTime
		}
		switch a.Status {
		case "running":
			running = true
			r.Status = "running"
		case "incomplete":
			if r.Status == "completed" {
				r.Status = "incomplete"
			}
		}
		if end := a.StartTime + a.DurationMs; a.StartTime > 0 && end > r.EndTime {
			r.EndTime = end
		}
		r.Findings += len(a.Findings)
		if w := a.Worst; w != nil && (r.Worst == nil || severityRank[w.Severity] > severityRank[r.Worst.Severity]) {
			r.Worst = &FleetFinding{AppID: a.ID, AttemptID: a.AttemptID, AppName: a.Name, Finding: *w}
		}
	}
	if r.EndTime > r.StartTime {
		r.DurationMs = r.EndTime - r.StartTime
	}
	if running {
		r.EndTime = -1
	}
	return r
}

// runOrders are the ?sort= keys of the runs list.
var runOrders = map[string]func(a, b RunSummary) int{
	"start":    func(a, b RunSummary) int { return cmp.Compare(a.StartTime, b.StartTime) },
	"name":     func(a, b RunSummary) int { return strings.Compare(a.Name, b.Name) },
	"apps":     func(a, b RunSummary) int { return cmp.Compare(a.Apps, b.Apps) },
	"duration": func(a, b RunSummary) int { return cmp.Compare(a.DurationMs, b.DurationMs) },
}

// RunPage is one page of runs: filtered by status and q (name or id
// substring), sorted (default newest first) and cut at offset/length.
type RunPage struct {
	Runs []RunSummary
	Listing
}

// RunList is the page of the runs of apps a query asks for.
func RunList(apps []AppSummary, q url.Values) (RunPage, error) {
	l, err := ParseListing(q, []string{"start", "name", "apps", "duration"}, "-start")
	p := RunPage{Listing: l}
	if err != nil {
		return p, err
	}
	status := q.Get("status")
	switch status {
	case "", "running", "completed", "incomplete":
	default:
		return p, errors.New("unknown status: " + status)
	}
	all, _ := Runs(apps)
	sub := strings.ToLower(q.Get("q"))
	var out []RunSummary
	for _, r := range all {
		if status != "" && r.Status != status {
			continue
		}
		if sub != "" && !strings.Contains(strings.ToLower(r.Name), sub) && !strings.Contains(strings.ToLower(r.ID), sub) {
			continue
		}
		out = append(out, r)
	}
	p.Runs = Page(out, &p.Listing, runOrders, func(r RunSummary) string { return r.ID })
	if p.Runs == nil {
		p.Runs = []RunSummary{}
	}
	return p, nil
}

// RunDetail is a run with its application attempts and, per process
// type, the largest CPU and RSS agents saw over the run.
type RunDetail struct {
	RunSummary
	AppList   []AppSummary   `json:"applications"`
	Processes []ProcessUsage `json:"processes"`
}

// Detail returns the run id names among apps, false when no application
// does; samples returns an application's agent samples.
func Detail(apps []AppSummary, id string, samples func(appID string) ([]store.Sample, error)) (RunDetail, bool) {
	_, byID := Runs(apps)
	atts, ok := byID[id]
	if !ok {
		return RunDetail{}, false
	}
	d := RunDetail{RunSummary: runSummary(atts), AppList: atts}
	var all []store.Sample
	seen := map[string]bool{}
	for _, a := range atts {
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		if xs, err := samples(a.ID); err == nil {
			all = append(all, xs...)
		}
	}
	d.Processes = processUsage(all)
	return d, true
}

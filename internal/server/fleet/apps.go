// Package fleet holds the values serve's fleet views are made of — an
// application attempt's summary (AppSummary), its findings, orchestrator
// runs, the peers missing from a view — and the queries over them: the
// filters, orders and pages the API's lists and the web pages share. It
// keeps no state: the server builds the summaries, the pages and the API
// only read them.
package fleet

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// Finding is the part of a report finding the fleet views use.
type Finding struct {
	Rule        string          `json:"rule"`
	Severity    string          `json:"severity"`
	Title       string          `json:"title"`
	Detail      string          `json:"detail,omitempty"`
	Recipe      string          `json:"recipe,omitempty"`
	StageIDs    []int           `json:"stageIds,omitempty"`
	ExecutorIDs []string        `json:"executorIds,omitempty"`
	Evidence    json.RawMessage `json:"evidence,omitempty"`
	// Cost and Parts are the report's: what the problem cost, and the
	// stages or executors a folded finding covers.
	Cost  *diagnose.Cost  `json:"cost,omitempty"`
	Parts []diagnose.Part `json:"parts,omitempty"`
}

// CostText says the cost the way every report does; "" when unknown.
func (f Finding) CostText() string { return f.Cost.String() }

// SQLID is the SQL query a finding names in its evidence (sqlId), or nil.
func (f Finding) SQLID() *int64 {
	var e struct {
		SQLID *int64 `json:"sqlId"`
	}
	if len(f.Evidence) == 0 || json.Unmarshal(f.Evidence, &e) != nil {
		return nil
	}
	return e.SQLID
}

// AppSummary is one application attempt as the fleet views show it.
type AppSummary struct {
	ID         string           `json:"id"`
	AttemptID  string           `json:"attemptId,omitempty"`
	Name       string           `json:"name"`
	User       string           `json:"user"`
	Status     string           `json:"status"` // running | completed | incomplete
	StartTime  int64            `json:"startTime"`
	EndTime    int64            `json:"endTime"` // -1 while running
	DurationMs int64            `json:"durationMs"`
	Tags       []string         `json:"tags"`
	Run        *store.Run       `json:"run,omitempty"`
	Stages     int              `json:"stages"`
	Tasks      int              `json:"tasks"`
	Events     int64            `json:"events"`
	Phases     map[string]int64 `json:"phases,omitempty"`
	Findings   []Finding        `json:"findings"`
	Worst      *Finding         `json:"worstFinding"`
	// Outcome is the report's outcome (reportv1.Outcome): whether a job
	// failed, which, and what failed it; nil before the first analysis.
	Outcome *reportv1.Outcome `json:"outcome,omitempty"`
	// Cost is what the attempt held, executors and driver (the total
	// analyze prints), with money at serve's prices; nil before the
	// first analysis.
	Cost *cost.Usage `json:"cost,omitempty"`
	Log  string      `json:"log"`
	// LastUpdated is when the log last changed (epoch ms).
	LastUpdated int64 `json:"lastUpdated"`
	key         string
	search      string // name and id in lower case, what ?q= searches
	// fileMod is the log file's own modification time (epoch ms; 0 when
	// unknown): what says a log still being written is live.
	fileMod int64
}

// SetIndex records what the summary is known by on the instance that
// indexed it: its log's index key (which breaks ties in every order) and
// the log file's modification time (epoch ms; 0 when unknown). It also
// keeps the name and id in lower case for ?q=.
func (a *AppSummary) SetIndex(key string, fileMod int64) {
	a.key, a.fileMod = key, fileMod
	a.search = strings.ToLower(a.Name + "\x00" + a.ID)
}

// Key is the index key of the attempt's log ("" for a summary never
// indexed).
func (a AppSummary) Key() string { return a.key }

// FileMod is the log file's own modification time (epoch ms; 0 when
// unknown): what says a log still being written is live.
func (a AppSummary) FileMod() int64 { return a.fileMod }

// FinishedKey adds to key what a cached answer about the attempt depends
// on — its log and when that last changed — or reports false when it
// runs: its answers change with every event and with now.
func (a AppSummary) FinishedKey(key *strings.Builder) bool {
	if a.Status == "running" {
		return false
	}
	fmt.Fprintf(key, "|%s|%d", a.key, a.LastUpdated)
	return true
}

// SeverityRank orders finding severities, worst highest.
func SeverityRank(severity string) int { return severityRank[severity] }

var severityRank = map[string]int{"info": 1, "warning": 2, "critical": 3}

// completes), "stopped" when the SparkContext stopped with jobs running,
// else its status (running, completed, incomplete).
func (a AppSummary) Badge() string {
	if a.Outcome != nil && a.Status != "running" {
		switch a.Outcome.Status {
		case "failed", "stopped":
			return a.Outcome.Status
		}
	}
	return a.Status
}

// BadgeTitle says which jobs failed, for the badge's tooltip.
func (a AppSummary) BadgeTitle() string {
	if a.Outcome == nil {
		return ""
	}
	return a.Outcome.Summary
}

// appOrders are the ?sort= keys of the application lists.
var appOrders = map[string]func(a, b *AppSummary) int{
	"start":    func(a, b *AppSummary) int { return cmp.Compare(a.StartTime, b.StartTime) },
	"duration": func(a, b *AppSummary) int { return cmp.Compare(a.DurationMs, b.DurationMs) },
	"name":     func(a, b *AppSummary) int { return strings.Compare(a.Name, b.Name) },
	"user":     func(a, b *AppSummary) int { return strings.Compare(a.User, b.User) },
	"stages":   func(a, b *AppSummary) int { return cmp.Compare(a.Stages, b.Stages) },
	"tasks":    func(a, b *AppSummary) int { return cmp.Compare(a.Tasks, b.Tasks) },
	"severity": func(a, b *AppSummary) int { return cmp.Compare(worstRank(a), worstRank(b)) },
	"cost":     func(a, b *AppSummary) int { return cmp.Compare(costRank(a), costRank(b)) },
}

// costRank orders by money where both are priced (an instance type's
// core-hour may cost more), else by core-hours; none comes first.
func costRank(a *AppSummary) float64 {
	switch {
	case a.Cost == nil:
		return -1
	case a.Cost.Money != nil:
		return *a.Cost.Money
	}
	return a.Cost.CoreHours
}

// AppOrder is the order of the ?sort= key (without its "-"), nil for
// none.
func AppOrder(key string) func(a, b *AppSummary) int { return appOrders[key] }

func worstRank(a *AppSummary) int {
	if a.Worst == nil {
		return 0
	}
	return severityRank[a.Worst.Severity]
}

// AppList is the application attempts of all a list asks for: filtered (see
// Filter), sorted by ?sort= (default newest first) and cut at
// ?offset=/?length= (length defaults to defLength; 0: all).
func AppList(all []AppSummary, q url.Values, defLength int) ([]*AppSummary, Listing, error) {
	l, err := ParseListing(q, slices.Sorted(maps.Keys(appOrders)), "-start")
	if err != nil {
		return nil, l, err
	}
	if q.Get("length") == "" {
		l.Length = defLength
	}
	apps, err := Filter(all, q)
	if err != nil {
		return nil, l, err
	}
	apps = Page(apps, &l, appOrders, func(a *AppSummary) string { return a.key })
	if apps == nil {
		apps = []*AppSummary{}
	}
	return apps, l, nil
}

// Filter keeps the summaries a query asks for: user, status, rule, tag,
// run (run id), q (name or id substring), from/to (start time, epoch ms or
// YYYY-MM-DD).
func Filter(apps []AppSummary, q url.Values) ([]*AppSummary, error) {
	from, err := timeParam(q.Get("from"))
	if err != nil {
		return nil, err
	}
	to, err := timeParam(q.Get("to"))
	if err != nil {
		return nil, err
	}
	status := q.Get("status")
	switch status {
	case "", "running", "completed", "incomplete":
	default:
		return nil, errors.New("unknown status: " + status)
	}
	user, rule, tag, run, sub := q.Get("user"), q.Get("rule"), q.Get("tag"), q.Get("run"), strings.ToLower(q.Get("q"))
	var out []*AppSummary
	for i := range apps {
		a := &apps[i]
		if user != "" && a.User != user {
			continue
		}
		if status != "" && a.Status != status {
			continue
		}
		if rule != "" && !hasRule(a.Findings, rule) {
			continue
		}
		if tag != "" && !contains(a.Tags, tag) {
			continue
		}
		if run != "" && (a.Run == nil || a.Run.ID != run) {
			continue
		}
		if sub != "" && !strings.Contains(a.search, sub) {
			continue
		}
		if from > 0 && a.StartTime < from || to > 0 && a.StartTime >= to {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

func hasRule(fs []Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func timeParam(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, errors.New("bad time: " + s + " (want epoch ms or YYYY-MM-DD)")
}

// AttemptsOf returns the summaries of one application in apps, in their
// order (newest first for a summaries list).
func AttemptsOf(apps []AppSummary, appID string) []AppSummary {
	var out []AppSummary
	for _, a := range apps {
		if a.ID == appID {
			out = append(out, a)
		}
	}
	return out
}

// Pick chooses an attempt of an application ("" = newest).
func Pick(atts []AppSummary, attemptID string) (AppSummary, bool) {
	for _, a := range atts {
		if attemptID == "" || a.AttemptID == attemptID {
			return a, true
		}
	}
	return AppSummary{}, false
}

// PhaseItem is one segment of a phase bar.
type PhaseItem struct {
	Name, Label string
	Ms          int64
}

var phaseOrder = []PhaseItem{{Name: "resourceWaitMs", Label: "resource wait"}, {Name: "computeMs", Label: "compute"},
	{Name: "outputWriteMs", Label: "output write"}, {Name: "driverOnlyMs", Label: "driver only"}}

// PhaseList is the phases in display order.
func (a AppSummary) PhaseList() []PhaseItem {
	var out []PhaseItem
	for _, p := range phaseOrder {
		if ms := a.Phases[p.Name]; ms > 0 {
			p.Ms = ms
			out = append(out, p)
		}
	}
	return out
}

// PhaseTotal is the sum of the phases.
func (a AppSummary) PhaseTotal() int64 {
	var t int64
	for _, p := range a.PhaseList() {
		t += p.Ms
	}
	return t
}

// FleetFinding is one finding of one application.
type FleetFinding struct {
	AppID     string `json:"appId"`
	AttemptID string `json:"attemptId,omitempty"`
	AppName   string `json:"appName"`
	Finding
}

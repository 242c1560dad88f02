package web

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/web/ui"
)

// JobSource is what the job pages read: the recurring jobs as the job
// API (/api/sparkdx/v1/jobs) gives them, so a page and the API show one
// set of numbers.
type JobSource interface {
	// Jobs are the recurring jobs, the last run latest first.
	Jobs(ctx context.Context) []regress.Job
	// Job is one job with its runs oldest first and the causes of its
	// newest regressed runs (the others marked Unexplained).
	Job(ctx context.Context, key string) (regress.Job, bool)
}

// runRow is one run as the job page's table shows it.
type runRow struct {
	regress.Run
	Wall, CoreSeconds, CostText, Verdict string
	Badge                                string // the status's badge style
	AppHref, CompareHref                 string
	Regressed                            bool
}

// rowOf formats a run; every figure comes from the run as the API gives
// it (the table test holds the page to that).
func rowOf(r regress.Run) runRow {
	row := runRow{Run: r, Wall: ui.Duration(r.WallMs), CoreSeconds: coreSeconds(r.CoreMs), CostText: r.Cost.String(),
		AppHref: "/apps/" + url.PathEscape(r.AppID), Verdict: verdictText(r.Verdict)}
	if r.Baseline != nil && r.Baseline.MedianRun != "" {
		row.CompareHref = "/compare?" + url.Values{"a": {r.Baseline.MedianRun}, "b": {r.AppID}}.Encode()
	}
	row.Regressed = r.Verdict != nil && r.Verdict.Regressed
	row.Badge = r.Status
	if r.Status == "succeeded" {
		row.Badge = "completed" // the fleet's green
	}
	return row
}

func coreSeconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) }

// verdictText says how a run compares with its baseline, "1.36× the
// median (4.1 deviations)" (a badge says whether that is a regression),
// or that it has none.
func verdictText(v *regress.Verdict) string {
	if v == nil {
		return "no baseline yet"
	}
	dev := "∞"
	if !math.IsInf(v.Sigmas, 0) {
		dev = strconv.FormatFloat(v.Sigmas, 'f', 1, 64)
	}
	return fmt.Sprintf("%.2f× the median (%s deviations)", v.Ratio, dev)
}

// trendChart is one figure over a job's runs, oldest at the left; each
// dot links to the run's comparison with its baseline's median run.
type trendChart struct {
	W, H, AxisY, LabelX, EndX int
	Title, MaxLabel, Points   string
	First, Last               string // the first and last runs' start times
	Dots                      []trendDot
}

type trendDot struct {
	X, Y      int
	Href      string
	Label     string
	Regressed bool
}

// trendOf draws value over rows (oldest first); nil when every value is
// zero (runs analysed before sparkdx computed costs, say).
func trendOf(rows []runRow, title string, value func(runRow) float64, format func(float64) string) *trendChart {
	var maxV float64
	for _, r := range rows {
		maxV = max(maxV, value(r))
	}
	if maxV <= 0 || len(rows) == 0 {
		return nil
	}
	c := &trendChart{W: chartW, H: 160, AxisY: 154, LabelX: labelW, EndX: chartW - 10, Title: title, MaxLabel: format(maxV),
		First: ui.Time(rows[0].StartTime), Last: ui.Time(rows[len(rows)-1].StartTime)}
	step := float64(chartW-labelW-20) / float64(max(len(rows)-1, 1))
	var b strings.Builder
	for i, r := range rows {
		x, y := labelW+10+int(float64(i)*step), 10+int((maxV-value(r))*130/maxV)
		b.WriteString(strconv.Itoa(x) + "," + strconv.Itoa(y) + " ")
		href := r.CompareHref
		if href == "" {
			href = r.AppHref
		}
		c.Dots = append(c.Dots, trendDot{X: x, Y: y, Href: href, Regressed: r.Regressed,
			Label: fmt.Sprintf("%s %s: %s — %s", r.AppID, ui.Time(r.StartTime), format(value(r)), r.Verdict)})
	}
	c.Points = b.String()
	return c
}

// jobHistoryPage is a recurring job's history: its runs newest first with their
// verdicts and causes, and the trend of wall time and cost.
func (s *Pages) jobHistoryPage(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("job")
	if s.cfg.Jobs == nil {
		s.errorPage(w, http.StatusNotFound, "Unknown job", "This server keeps no job history.")
		return
	}
	j, ok := s.cfg.Jobs.Job(r.Context(), key)
	if !ok {
		s.errorPage(w, http.StatusNotFound, "Unknown job", "No finished application is a run of the job "+key+".")
		return
	}
	rows := make([]runRow, len(j.Runs))
	for i, run := range j.Runs {
		rows[i] = rowOf(run)
	}
	costTitle, costOf, costFmt := "Core-hours held (executors and driver)", func(r runRow) float64 { return r.Cost.CoreHours }, cost.FormatHours
	if j.Priced {
		costTitle, costFmt = "Cost at the given prices", cost.FormatMoney
		costOf = func(r runRow) float64 {
			if r.Cost.Money == nil {
				return 0
			}
			return *r.Cost.Money
		}
	}
	charts := []*trendChart{
		trendOf(rows, "Wall time", func(r runRow) float64 { return float64(r.WallMs) }, func(v float64) string { return ui.Duration(int64(v)) }),
		trendOf(rows, costTitle, costOf, costFmt),
	}
	slices.Reverse(rows)
	s.render(w, http.StatusOK, "jobhistory.html", map[string]any{"Title": j.Key, "Live": false, "Job": j, "Rows": rows,
		"Charts": charts})
}

// jobListItem is one job on the jobs page.
type jobListItem struct {
	Key, Href string
	Runs      int
	Latest    runRow
}

// jobListPage lists the recurring jobs with their latest run's verdict.
func (s *Pages) jobListPage(w http.ResponseWriter, r *http.Request) {
	var jobs []jobListItem
	if s.cfg.Jobs != nil {
		for _, j := range s.cfg.Jobs.Jobs(r.Context()) {
			jobs = append(jobs, jobListItem{Key: j.Key, Href: "/jobs/" + url.PathEscape(j.Key), Runs: len(j.Runs), Latest: rowOf(j.Latest)})
		}
	}
	s.render(w, http.StatusOK, "joblist.html", map[string]any{"Title": "Jobs", "Live": false, "Jobs": jobs})
}

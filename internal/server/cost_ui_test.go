package server

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
)

// TestServeCost serves the config-change scenario's four real logs with
// and without prices: the fleet API's cost, the fleet page's cost cell,
// the app page's cost card, the report API and the job API's run cost are
// each the total
// the CLI's analysis computes for the log at the same prices (analyze's
// "total" line), with money only when prices are given.
func TestServeCost(t *testing.T) {
	cli := map[string]cost.Usage{} // by app id, unpriced
	for _, path := range configChangeLogs(t) {
		ls, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
		if err != nil || len(ls) != 1 {
			t.Fatalf("%s: %v", path, err)
		}
		a, src, _, err := pipeline.Replay(context.Background(), ls[0], replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := pipeline.Diagnose(a, nil, src, nil)
		cli[a.AppID] = d.Report.ResourceCost.Total
	}
	tests := []struct {
		name   string
		prices cost.PriceList
	}{
		{"hours only", cost.PriceList{}},
		{"priced", cost.PriceList{Prices: cost.Prices{CoreHour: 0.05, GBHour: 0.006},
			InstanceTypes: map[string]cost.Prices{"m5.2xlarge": {CoreHour: 9, GBHour: 9}}}}, // no log names it
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := configChangeServer(t, tt.prices)
			var apps []fleet.AppSummary
			ts.getJSON(t, "/api/sparkdx/v1/apps", &apps)
			_, page := ts.get(t, "/?length=100")
			cells := map[string]string{}
			for _, r := range tableRows(t, page, "apps") {
				cells[r["data-app"]] = r["cost"]
			}
			var job Job
			ts.getJSON(t, "/api/sparkdx/v1/jobs/"+url.PathEscape(configChangeJob), &job)
			runCost := map[string]cost.Usage{}
			for _, r := range job.Runs {
				runCost[r.AppID] = r.Cost
			}
			savings := 0
			defer func() {
				if savings == 0 {
					t.Errorf("no tuning change in the reports: their savings' money was not checked")
				}
			}()
			if len(apps) != 4 || len(cli) != 4 {
				t.Fatalf("got %d apps served, %d analysed, want 4", len(apps), len(cli))
			}
			for _, a := range apps {
				want := cli[a.ID].At(tt.prices.For(""))
				if (want.Money != nil) != tt.prices.Set() {
					t.Fatalf("CLI cost %+v: money iff priced", want)
				}
				if a.Cost == nil || a.Cost.String() != want.String() {
					t.Errorf("%s: fleet API cost %v, want %v", a.ID, a.Cost, want)
				}
				if got := cells[a.ID]; got != want.Short() {
					t.Errorf("%s: fleet page cost %q, want %q", a.ID, got, want.Short())
				}
				if got := runCost[a.ID]; got.String() != want.String() {
					t.Errorf("%s: job API cost %v, want %v", a.ID, got, want)
				}
				var rep reportv1.Report
				ts.getJSON(t, "/api/sparkdx/v1/apps/"+url.PathEscape(a.ID)+"/report", &rep)
				if rep.ResourceCost == nil || rep.ResourceCost.Total.String() != want.String() {
					t.Errorf("%s: report API cost %v, want %v", a.ID, rep.ResourceCost, want)
				}
				if rep.Tuning != nil {
					savings += len(rep.Tuning.Changes)
					for _, c := range rep.Tuning.Changes {
						if (c.Saving.Money != nil) != tt.prices.Set() {
							t.Errorf("%s: report API tuning saving %v: money iff priced", a.ID, c.Saving)
						}
					}
				}
				_, app := ts.get(t, "/apps/"+url.PathEscape(a.ID))
				if got := textByID(t, app, "app-cost"); got != "Cost"+want.String() {
					t.Errorf("%s: app page cost card %q, want %q", a.ID, got, "Cost"+want.String())
				}
			}
		})
	}
}

// textByID is the text of the element with the id, "" for none.
func textByID(t *testing.T, body []byte, id string) string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var find func(n *html.Node) string
	find = func(n *html.Node) string {
		if n.Type == html.ElementNode && attrOf(n, "id") == id {
			return strings.TrimSpace(textOf(n))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if s := find(c); s != "" {
				return s
			}
		}
		return ""
	}
	return find(doc)
}

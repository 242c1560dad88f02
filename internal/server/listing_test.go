package server

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/web"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestAppsListing: the apps API and the fleet page sort and page in the
// server — each order holds across pages, pages neither overlap nor miss
// an application, X-Total-Count counts the matches, and the fleet page's
// next link leads to the next page.
func TestAppsListing(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	var all []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &all)
	if len(all) < 15 {
		t.Fatalf("%d apps, want the shared logs'", len(all))
	}
	for _, order := range []string{"-start", "start", "-duration", "name", "-tasks", "-severity", "user"} {
		var pages []fleet.AppSummary
		for off := 0; off < len(all)+4; off += 4 {
			var p []fleet.AppSummary
			path := "/api/sparkdx/v1/apps?sort=" + order + "&length=4&offset=" + strconv.Itoa(off)
			resp, err := http.Get(ts.url + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("X-Total-Count"); got != strconv.Itoa(len(all)) {
				t.Errorf("%s: X-Total-Count %q, want %d", path, got, len(all))
			}
			ts.getJSON(t, path, &p)
			if len(p) > 4 {
				t.Errorf("%s: %d apps, want at most 4", path, len(p))
			}
			pages = append(pages, p...)
		}
		if len(pages) != len(all) {
			t.Errorf("sort %s: pages hold %d apps, want %d", order, len(pages), len(all))
		}
		seen := map[string]bool{}
		for i, a := range pages {
			k := a.ID + "/" + a.AttemptID
			if seen[k] {
				t.Errorf("sort %s: %s on two pages", order, k)
			}
			seen[k] = true
			if i == 0 {
				continue
			}
			c := fleet.AppOrder(strings.TrimPrefix(order, "-"))(&pages[i-1], &pages[i])
			if strings.HasPrefix(order, "-") {
				c = -c
			}
			if c > 0 {
				t.Errorf("sort %s: %s before %s", order, pages[i-1].ID, a.ID)
			}
		}
	}
	var failed []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps?status=incomplete&sort=-duration", &failed)
	for _, a := range failed {
		if a.Status != "incomplete" {
			t.Errorf("status filter kept %s (%s)", a.ID, a.Status)
		}
	}
	for _, bad := range []string{"sort=size", "offset=-1", "length=x"} {
		if code, body := ts.get(t, "/api/sparkdx/v1/apps?"+bad); code != http.StatusBadRequest || !strings.Contains(string(body), "error") {
			t.Errorf("?%s: %d %s, want 400 with an error", bad, code, body)
		}
	}

	// The fleet page: length 5, its next link, the same applications as
	// the API's second page.
	_, body := ts.get(t, "/?sort=name&length=5")
	next := regexp.MustCompile(`id="next" href="([^"]+)"`).FindSubmatch(body)
	if next == nil {
		t.Fatalf("fleet page of 5: no next link")
	}
	if !strings.Contains(string(body), "1–5 of "+strconv.Itoa(len(all))+" matching") {
		t.Errorf("fleet page does not say which of the %d applications it shows", len(all))
	}
	_, body = ts.get(t, strings.ReplaceAll(string(next[1]), "&amp;", "&"))
	var second []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps?sort=name&length=5&offset=5", &second)
	rows := regexp.MustCompile(`<tr data-app="([^"]+)"`).FindAllSubmatch(body, -1)
	if len(rows) != len(second) {
		t.Fatalf("second fleet page has %d rows, the API's second page %d apps", len(rows), len(second))
	}
	for i, m := range rows {
		if string(m[1]) != second[i].ID {
			t.Errorf("second fleet page row %d is %s, the API says %s", i, m[1], second[i].ID)
		}
	}
	// The Compare page offers the ids started last, each once, newest
	// first, and keeps the ids asked for in its inputs.
	_, body = ts.get(t, "/compare?a="+all[0].ID+"&b="+all[1].ID)
	var offered []string
	for _, m := range regexp.MustCompile(`<option value="([^"]+)">`).FindAllSubmatch(body, -1) {
		offered = append(offered, string(m[1]))
	}
	var want []string
	for _, a := range all {
		if !slices.Contains(want, a.ID) && len(want) < web.CompareOffered {
			want = append(want, a.ID)
		}
	}
	if !slices.Equal(offered, want) {
		t.Errorf("compare offers %v, want %v", offered, want)
	}
	if !strings.Contains(string(body), `name="a" list="app-ids" value="`+all[0].ID+`"`) {
		t.Errorf("compare page does not keep the id asked for")
	}
	if _, body = ts.get(t, "/"); len(regexp.MustCompile(`<tr data-app=`).FindAll(body, -1)) != min(len(all), web.FleetPageLength) {
		t.Errorf("the fleet page lists more than its %d rows", web.FleetPageLength)
	}
}

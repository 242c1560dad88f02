package server

import (
	"context"
	"net/url"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/test/scenario"
)

// TestJobSamplesAgree holds serve's job history to the one definition of
// a run's numbers: each config-change run's wall time, core time, input
// and shuffle bytes, status and cost in /api/sparkdx/v1/jobs/{job} are
// regress.SampleOf of the report `sparkdx analyze` builds from the log,
// and the wall time and totals `sparkdx diff` shows.
func TestJobSamplesAgree(t *testing.T) {
	ts := configChangeServer(t, cost.PriceList{})
	var job Job
	ts.getJSON(t, "/api/sparkdx/v1/jobs/"+url.PathEscape(configChangeJob), &job)
	byApp := map[string]JobRun{}
	for _, r := range job.Runs {
		byApp[r.AppID] = r
	}
	for _, l := range configChangeLogs(t) {
		d, err := scenario.Diagnose(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		p := pipeline.Diagnose(d.Attempt, d.Result, pipeline.Source{}, nil)
		want := regress.SampleOf(configChangeJob, p.Report)
		got, ok := byApp[want.AppID]
		if !ok {
			t.Fatalf("%s: app %s not among the job's runs", l, want.AppID)
		}
		if !reflect.DeepEqual(got.Sample, want) {
			t.Errorf("%s: serve's run\n%+v\nwant regress.SampleOf\n%+v", filepath.Base(l), got.Sample, want)
		}
		in := diff.Input{Report: p.Report, Result: p.Result}
		dd := diff.Compare(in, in)
		totals := map[string]int64{"wall time": dd.Phases[0].After}
		for _, c := range dd.Totals {
			totals[c.Name] = c.After
		}
		for _, c := range []struct {
			name string
			got  int64
		}{{"wall time", got.WallMs}, {"input", got.InputBytes}, {"shuffle read", got.ShuffleBytes}} {
			if c.got != totals[c.name] {
				t.Errorf("%s: serve's %s %d, sparkdx diff's %d", filepath.Base(l), c.name, c.got, totals[c.name])
			}
		}
	}
}

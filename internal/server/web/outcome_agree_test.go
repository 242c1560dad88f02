package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
)

// TestOutcomeViewsAgree: on every scenario log (and the plugin fixtures),
// the serve app page's failure banner, the app badge, the CLI's text
// report and finding, and the JSON report say the same thing about how
// the application ended — which jobs failed, the root job, its exception
// and the stage it aborted — and agree with Spark's own job statuses.
func TestOutcomeViewsAgree(t *testing.T) {
	var paths []string
	for _, g := range []string{"../../../testdata/scenarios/*/spark-*/app-*", "../../../testdata/plugins/*/app-*"} {
		p, _ := filepath.Glob(g)
		paths = append(paths, p...)
	}
	if len(paths) < 40 {
		t.Fatalf("found %d scenario logs, want the library's", len(paths))
	}
	failed := 0
	for _, path := range paths {
		rel, _ := filepath.Rel("../../../testdata", path)
		t.Run(rel, func(t *testing.T) {
			a, d := diagnoseLog(t, path)
			// The JSON, as `sparkdx analyze --format json` writes it.
			var js bytes.Buffer
			if err := report.WriteJSON(&js, []*reportv1.Report{d.Report}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Outcome reportv1.Outcome `json:"outcome"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			o := doc.Outcome
			if o.Status == "failed" {
				failed++
			}
			checkSparkStatuses(t, a, o)
			checkBanner(t, a, d, o)
			checkBadge(t, o)
			checkCLI(t, d, o)
		})
	}
	if failed < 5 {
		t.Errorf("%d logs with a failed job, want the failure scenarios' (≥ 5)", failed)
	}
}

func diagnoseLog(t *testing.T, path string) (*model.Attempt, *pipeline.Diagnosis) {
	t.Helper()
	logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, src, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a, pipeline.Diagnose(a, nil, src, nil)
}

// checkSparkStatuses: every job Spark marked FAILED is failed, stopped or
// cancelled by the user in the outcome, and nothing else is.
func checkSparkStatuses(t *testing.T, a *model.Attempt, o reportv1.Outcome) {
	for _, j := range a.Jobs {
		in := slices.Contains(o.FailedJobs, j.ID) || slices.Contains(o.StoppedJobs, j.ID)
		user := j.Status == model.JobFailed && strings.Contains(j.ErrorMessage, "cancelled") &&
			!strings.Contains(j.ErrorMessage, "SparkContext was shut down")
		if in != (j.Status == model.JobFailed && !user) {
			t.Errorf("job %d (%s): failed or stopped in the outcome = %v", j.ID, j.Status, in)
		}
	}
}

// checkBanner: the app page's banner names the outcome's root job,
// exception, user frame, stage attempt and task.
func checkBanner(t *testing.T, a *model.Attempt, d *pipeline.Diagnosis, o reportv1.Outcome) {
	rc := rootCauseOf(a, d.Result)
	c := o.RootCause
	if (rc == nil) != (c == nil) {
		t.Fatalf("banner %+v, JSON root cause %+v: one is missing", rc, c)
	}
	if c == nil {
		return
	}
	if rc.JobID != c.JobID || rc.Class != c.Exception || rc.Frame != c.UserFrame || rc.Status != o.Status ||
		rc.Summary != o.Summary || rc.Task != c.TaskID || c.StageID >= 0 && (rc.Stage != c.StageID || rc.StageAttempt != c.StageAttempt) {
		t.Errorf("banner job %d %q at %q stage %d.%d task %d (%s: %s); JSON job %d %q at %q stage %d.%d task %d (%s: %s)",
			rc.JobID, rc.Class, rc.Frame, rc.Stage, rc.StageAttempt, rc.Task, rc.Status, rc.Summary,
			c.JobID, c.Exception, c.UserFrame, c.StageID, c.StageAttempt, c.TaskID, o.Status, o.Summary)
	}
	if strings.Contains(rc.Frame, "nvidia") || strings.Contains(rc.Frame, "org.apache.spark") {
		t.Errorf("banner's user frame %q is a library's", rc.Frame)
	}
}

// checkBadge: the badge says failed (or stopped) exactly when the JSON
// does, with the JSON's summary as its title.
func checkBadge(t *testing.T, o reportv1.Outcome) {
	sum := fleet.AppSummary{Status: "completed", Outcome: &o}
	want := "completed"
	if o.Status == "failed" || o.Status == "stopped" {
		want = o.Status
	}
	if got := sum.Badge(); got != want || sum.BadgeTitle() != o.Summary {
		t.Errorf("badge %q titled %q; JSON status %q, summary %q", got, sum.BadgeTitle(), o.Status, o.Summary)
	}
}

// checkCLI: the text report's status line carries the outcome; when a
// job failed, exactly one critical finding is the root cause, naming the
// failed jobs the JSON names for it and its exception.
func checkCLI(t *testing.T, d *pipeline.Diagnosis, o reportv1.Outcome) {
	var txt bytes.Buffer
	in := &report.Input{Report: d.Report, Result: d.Result, Attempt: d.Attempt}
	if err := report.WriteText(&txt, []*report.Input{in}, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if o.Status == "failed" && !strings.Contains(txt.String(), "failed: "+o.Summary) {
		t.Errorf("text report's status line lacks %q", "failed: "+o.Summary)
	}
	var roots []diagnose.Finding
	for _, f := range d.Findings {
		if f.Evidence["rootCause"] == true {
			roots = append(roots, f)
		}
	}
	c := o.RootCause
	switch {
	case o.Status != "failed":
		if len(roots) > 0 {
			t.Errorf("status %s, yet %d root-cause findings", o.Status, len(roots))
		}
	case len(roots) != 1:
		t.Fatalf("%d root-cause findings, want 1: %v", len(roots), roots)
	case roots[0].Severity != diagnose.Critical:
		t.Errorf("root cause %s is %s, want critical", roots[0].Rule, roots[0].Severity)
	case c.Exception != "" && roots[0].Rule == "task-failures" && roots[0].Evidence["exception"] != c.Exception:
		t.Errorf("finding's exception %v, JSON's %q", roots[0].Evidence["exception"], c.Exception)
	case !strings.Contains(fmt.Sprint(roots[0].Evidence["failedJobs"]), fmt.Sprint(c.JobID)) &&
		!strings.Contains(fmt.Sprint(roots[0].Evidence["jobIds"]), fmt.Sprint(c.JobID)):
		t.Errorf("root-cause finding %s names jobs %v, not the root job %d", roots[0].Rule,
			roots[0].Evidence["failedJobs"], c.JobID)
	}
}

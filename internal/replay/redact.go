package replay

import (
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

// redactEvent applies r to what an event may carry of a secret, before the
// replay keeps any of it (package redact says what): the environment's
// properties (with the application's own spark.redaction.regex on top),
// the SQL settings a query changed, descriptions, SQL texts, error
// messages and the URLs in plans.
func redactEvent(r *redact.Rules, ev sparkevent.Event) sparkevent.Event {
	// Events held by value are boxed again only when something changed:
	// most events carry no secret, and boxing allocates.
	switch e := ev.(type) {
	case sparkevent.Environment:
		app := r.ForApp(e.Env.SparkProperties)
		for _, ps := range [][][2]string{e.Env.SparkProperties, e.Env.HadoopProperties, e.Env.SystemProperties, e.Env.MetricsProperties} {
			app.Properties(ps) // in place: the slices are the event's
		}
	case sparkevent.AppStart:
		if name := r.Text(e.Name); name != e.Name {
			e.Name = name
			return e
		}
	case *sparkevent.JobStart:
		e.Props.Description = r.Text(e.Props.Description)
	case sparkevent.JobEnd:
		if msg := r.Text(e.Error); msg != e.Error {
			e.Error = msg
			return e
		}
	case sparkevent.StageSubmitted:
		if d := r.Text(e.Props.Description); d != e.Props.Description {
			e.Props.Description = d
			return e
		}
	case sparkevent.StageCompleted:
		if msg := r.Text(e.Info.FailureReason); msg != e.Info.FailureReason {
			e.Info.FailureReason = msg
			return e
		}
	case *sparkevent.TaskEnd:
		if e.Reason.ErrorMessage != "" {
			e.Reason.ErrorMessage = r.Text(e.Reason.ErrorMessage)
		}
		if l := e.Reason.Loss; l != nil && l.Reason != "" {
			l.Reason = r.Text(l.Reason)
		}
		if f := e.Reason.Fetch; f != nil && f.Message != "" {
			f.Message = r.Text(f.Message)
		}
	case sparkevent.SQLStart:
		redactPlan(r, e.Plan)           // in place: the plan is the event's
		r.Properties(e.ModifiedConfigs) // in place
		d, det, plan := r.Text(e.Description), r.Text(e.Details), r.URLs(e.PhysicalPlan)
		if d != e.Description || det != e.Details || plan != e.PhysicalPlan {
			e.Description, e.Details, e.PhysicalPlan = d, det, plan
			return e
		}
	case sparkevent.SQLAdaptive:
		redactPlan(r, e.Plan)
		if plan := r.URLs(e.PhysicalPlan); plan != e.PhysicalPlan {
			e.PhysicalPlan = plan
			return e
		}
	case sparkevent.SQLEnd:
		if msg := r.Text(e.ErrorMessage); msg != e.ErrorMessage {
			e.ErrorMessage = msg
			return e
		}
	}
	return ev
}

// redactPlan hides the URL passwords of a plan's node descriptions (Spark
// redacts data source options itself).
func redactPlan(r *redact.Rules, n *model.SQLPlanNode) {
	if n == nil {
		return
	}
	n.SimpleString = r.URLs(n.SimpleString)
	for _, c := range n.Children {
		redactPlan(r, c)
	}
}

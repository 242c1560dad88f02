package historyapi

import (
	"regexp"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
)

// redactPairs replaces the value of each pair whose key or value re matches, as
// Spark's Utils.redact does for the environment endpoint. The log's own
// values were redacted by the application when it wrote them; this applies
// the server's rule on top.
func redactPairs(re *regexp.Regexp, ps [][2]string) [][2]string {
	if re == nil {
		return ps
	}
	// Spark's default without the backtracking matcher: it was half of a
	// big application's environment page (hundreds of classpath values).
	match := redact.Matcher(re)
	out := make([][2]string, len(ps))
	for i, p := range ps {
		if match(p[0]) || match(p[1]) {
			p[1] = model.Redacted
		}
		out[i] = p
	}
	return out
}

// Environment is the attempt's ApplicationEnvironmentInfo as the History
// Server shows it, its properties redacted by the API's Redaction: the
// typed value /environment answers (written by obj) and serve's
// environment page reads.
type Environment struct {
	Runtime struct{ JavaVersion, JavaHome, ScalaVersion string }
	// The properties as [name, value] pairs, in the log's order.
	SparkProperties, HadoopProperties, SystemProperties, MetricsProperties, ClasspathEntries [][2]string

	profiles []*model.ResourceProfile
}

// Environment is attempt a's environment.
func (api *API) Environment(a *model.Attempt) *Environment {
	env, re := &a.Env, api.Redaction
	e := &Environment{SparkProperties: redactPairs(re, env.SparkProperties),
		HadoopProperties: redactPairs(re, env.HadoopProperties), SystemProperties: redactPairs(re, env.SystemProperties),
		MetricsProperties: redactPairs(re, env.MetricsProperties), ClasspathEntries: env.ClasspathEntries,
		profiles: a.ResourceProfiles}
	e.Runtime.JavaVersion, e.Runtime.JavaHome, e.Runtime.ScalaVersion = env.JavaVersion, env.JavaHome, env.ScalaVersion
	return e
}

// obj writes the environment as Spark's ApplicationEnvironmentInfo.
func (e *Environment) obj() *Obj {
	profiles := []any{}
	for _, p := range e.profiles {
		er := obj()
		for _, r := range p.ExecutorResources {
			er.Set(r.Name, obj().Set("resourceName", r.Name).Set("amount", r.Amount).
				Set("discoveryScript", r.DiscoveryScript).Set("vendor", r.Vendor))
		}
		tr := obj()
		for _, r := range p.TaskResources {
			tr.Set(r.Name, obj().Set("resourceName", r.Name).Set("amount", r.Amount))
		}
		profiles = append(profiles, obj().Set("id", p.ID).Set("executorResources", er).Set("taskResources", tr))
	}
	return obj().
		Set("runtime", obj().Set("javaVersion", e.Runtime.JavaVersion).Set("javaHome", e.Runtime.JavaHome).
			Set("scalaVersion", e.Runtime.ScalaVersion)).
		Set("sparkProperties", pairsList(e.SparkProperties)).
		Set("hadoopProperties", pairsList(e.HadoopProperties)).
		Set("systemProperties", pairsList(e.SystemProperties)).
		Set("metricsProperties", pairsList(e.MetricsProperties)).
		Set("classpathEntries", pairsList(e.ClasspathEntries)).
		Set("resourceProfiles", profiles)
}

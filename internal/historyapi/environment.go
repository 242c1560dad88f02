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

func environment(a *model.Attempt, re *regexp.Regexp) *Obj {
	env := &a.Env
	profiles := []any{}
	for _, p := range a.ResourceProfiles {
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
		Set("runtime", obj().Set("javaVersion", env.JavaVersion).Set("javaHome", env.JavaHome).
			Set("scalaVersion", env.ScalaVersion)).
		Set("sparkProperties", pairsList(redactPairs(re, env.SparkProperties))).
		Set("hadoopProperties", pairsList(redactPairs(re, env.HadoopProperties))).
		Set("systemProperties", pairsList(redactPairs(re, env.SystemProperties))).
		Set("metricsProperties", pairsList(redactPairs(re, env.MetricsProperties))).
		Set("classpathEntries", pairsList(env.ClasspathEntries)).
		Set("resourceProfiles", profiles)
}

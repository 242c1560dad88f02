package web

import (
	"net/http"
)

// environmentPage shows the application's configuration as the History
// Server does: values whose key or value matches the redaction rules are
// hidden.
func (s *Pages) environmentPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	if d.attempt == nil {
		s.errorPage(w, http.StatusNotFound, "Cannot read the environment", "no such attempt: "+d.base)
		return
	}
	env := d.api.Environment(d.attempt)
	s.render(w, http.StatusOK, "environment.html", map[string]any{"Title": "Environment · " + sum.Name,
		"Live": sum.Status == "running", "Sum": sum, "Env": env, "Sections": []struct {
			ID, Title string
			Rows      [][2]string
		}{{"spark", "Spark properties", env.SparkProperties}, {"hadoop", "Hadoop properties", env.HadoopProperties},
			{"system", "System properties", env.SystemProperties}, {"metrics", "Metrics properties", env.MetricsProperties},
			{"classpath", "Classpath entries", env.ClasspathEntries}}})
}

package web

import (
	"net/http"

	"github.com/sparkdx/sparkdx/internal/historyapi"
)

// environmentDoc is the API's ApplicationEnvironmentInfo, as redacted.
type environmentDoc struct {
	Runtime struct {
		JavaVersion  string `json:"javaVersion"`
		JavaHome     string `json:"javaHome"`
		ScalaVersion string `json:"scalaVersion"`
	} `json:"runtime"`
	SparkProperties  [][2]string `json:"sparkProperties"`
	HadoopProperties [][2]string `json:"hadoopProperties"`
	SystemProperties [][2]string `json:"systemProperties"`
	MetricsProps     [][2]string `json:"metricsProperties"`
	ClasspathEntries [][2]string `json:"classpathEntries"`
}

// environmentPage shows the application's configuration as the History
// Server does: values whose key or value matches the redaction rules are
// hidden.
func (s *Pages) environmentPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	var env environmentDoc
	if err := d.get("/environment", &env); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot read the environment", err.Error())
		return
	}
	s.render(w, http.StatusOK, "environment.html", map[string]any{"Title": "Environment · " + sum.Name,
		"Live": sum.Status == "running", "Sum": sum, "Env": env, "Sections": []struct {
			ID, Title string
			Rows      [][2]string
		}{{"spark", "Spark properties", env.SparkProperties}, {"hadoop", "Hadoop properties", env.HadoopProperties},
			{"system", "System properties", env.SystemProperties}, {"metrics", "Metrics properties", env.MetricsProps},
			{"classpath", "Classpath entries", env.ClasspathEntries}}})
}

package historyapi

import "github.com/sparkdx/sparkdx/internal/model"

func environment(a *model.Attempt) *Obj {
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
		Set("sparkProperties", pairsList(env.SparkProperties)).
		Set("hadoopProperties", pairsList(env.HadoopProperties)).
		Set("systemProperties", pairsList(env.SystemProperties)).
		Set("metricsProperties", pairsList(env.MetricsProperties)).
		Set("classpathEntries", pairsList(env.ClasspathEntries)).
		Set("resourceProfiles", profiles)
}

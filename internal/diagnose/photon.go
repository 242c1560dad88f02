package diagnose

import "fmt"

// photonNote says, in a finding built from the JVM's task metrics, that
// Databricks Photon ran plan nodes natively: its memory, spill and GC are
// outside the JVM's task metrics, so what the finding measures is a lower
// bound (Photon reports its own in its nodes' SQL metrics). "" without
// Photon.
func photonNote(p *Pass, metrics string) string {
	ph := p.Result.Plugins.Photon
	if ph == nil {
		return ""
	}
	return fmt.Sprintf(" Photon ran %d of the %d plan nodes natively, outside the JVM: Spark's %s do not count its work, "+
		"so this is a lower bound (Photon's own metrics are in the SQL view).", ph.PlanNodes, ph.AllNodes, metrics)
}

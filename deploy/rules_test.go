package deploy

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// promtool accepts the rules and their unit tests pass.
func TestPromtoolRules(t *testing.T) {
	promtool := sparktest.Program(t, "promtool")
	for _, args := range [][]string{
		{"check", "rules", "sparkdx-rules.yml"},
		{"test", "rules", "sparkdx-rules.test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "prometheus"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

// Every alert carries a severity and a summary.
func TestRulesLabelled(t *testing.T) {
	rf := loadRules(t, filepath.Join("prometheus", "sparkdx-rules.yml"))
	n := 0
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			n++
			switch r.Labels["severity"] {
			case "info", "warning", "critical":
			default:
				t.Errorf("%s: got severity %q, want info, warning or critical", r.Alert, r.Labels["severity"])
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: want summary and description annotations", r.Alert)
			}
		}
	}
	if n < 5 {
		t.Errorf("got %d alerts, want at least 5", n)
	}
}

package diagnose

import (
	"fmt"
	"strings"
)

// The finding budget: a report aims at ten findings or fewer on any
// application, shown by default. Three things keep it: Run folds each
// rule's per-stage findings of one cause into one (foldStages); every
// rule that can cost time gates on its cost as a share of the
// application (gate), so a problem a fix would not notice is info; and
// the renderers (text, HTML, the serve app page) collapse the info
// findings into one line unless asked for all (Shown).

// Shown splits findings, in their order, into those a report shows by
// default (warning and critical) and the info ones it collapses into a
// line; with all, every finding is shown.
func Shown(fs []Finding, all bool) (shown, collapsed []Finding) {
	for _, f := range fs {
		if f.Severity <= Info && !all {
			collapsed = append(collapsed, f)
			continue
		}
		shown = append(shown, f)
	}
	return shown, collapsed
}

// Short says the cost in a few characters, in the unit of its larger
// share: "~4.9s", "~2m00s core"; "" when unknown.
func (c *Cost) Short() string {
	if c == nil || c.WallMs <= 0 && c.CoreMs <= 0 {
		return ""
	}
	if c.WallMs > 0 && (c.CoreMs <= 0 || c.AppCoreMs <= 0 ||
		c.AppWallMs > 0 && float64(c.WallMs)/float64(c.AppWallMs) >= float64(c.CoreMs)/float64(c.AppCoreMs)) {
		return "~" + fmtMs(c.WallMs)
	}
	return fmt.Sprintf("~%s core", fmtMs(c.CoreMs))
}

// Where names the stages or executors of a part: "stage 3", "stages 3, 4",
// "executor 7".
func (p Part) Where() string {
	switch {
	case len(p.StageIDs) == 1:
		return fmt.Sprintf("stage %d", p.StageIDs[0])
	case len(p.StageIDs) > 1:
		return fmt.Sprintf("stages %s", ints(p.StageIDs))
	case len(p.ExecutorIDs) == 1:
		return "executor " + p.ExecutorIDs[0]
	case len(p.ExecutorIDs) > 1:
		return "executors " + strings.Join(p.ExecutorIDs, ", ")
	}
	return ""
}

func ints(xs []int) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}

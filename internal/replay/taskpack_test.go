package replay

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestTaskPackRoundTrip packs every task of every shared log (the History
// Server's test logs, the extra and compressed ones, the big log) and
// unpacks it again: each comes back equal to the replayed task, in the
// order packed.
func TestTaskPackRoundTrip(t *testing.T) {
	root := sparktest.Path(t)
	var dirs []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && filepath.Base(path) != "HistoryServerExpectations" {
			dirs = append(dirs, path)
		}
		return nil
	})
	tasks := 0
	for _, dir := range dirs {
		logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
		if err != nil {
			continue // a directory of something else
		}
		for _, l := range logs {
			a, _, err := Log(context.Background(), l, Options{Name: l.Name, InProgress: true})
			if err != nil {
				continue // the broken logs' directory
			}
			for _, s := range a.Stages {
				var p model.TaskPack
				for _, tk := range s.Tasks {
					p.Add(tk)
				}
				got, err := p.Unpack()
				if err != nil {
					t.Fatalf("%s stage %d.%d: %v", l.Path, s.StageID, s.AttemptID, err)
				}
				if len(got) != len(s.Tasks) || p.Len() != len(s.Tasks) {
					t.Fatalf("%s stage %d.%d: got %d tasks (Len %d), want %d", l.Path, s.StageID, s.AttemptID, len(got), p.Len(), len(s.Tasks))
				}
				for i, want := range s.Tasks {
					if !reflect.DeepEqual(got[i], want) {
						t.Errorf("%s stage %d.%d task %d:\n got %+v\nwant %+v", l.Path, s.StageID, s.AttemptID, want.TaskID, got[i], want)
					}
				}
				tasks += len(s.Tasks)
			}
		}
	}
	if tasks < 13000 {
		t.Errorf("round-tripped %d tasks; want the big log's 13k at least", tasks)
	}
	t.Logf("%d tasks of %d directories round-tripped", tasks, len(dirs))
}

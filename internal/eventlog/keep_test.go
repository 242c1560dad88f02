package eventlog

import (
	"context"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// listingStore is the file store, remembering which directories were
// listed.
type listingStore struct {
	FileStore
	listed []string
}

func (s *listingStore) List(ctx context.Context, dir string) ([]Entry, error) {
	s.listed = append(s.listed, dir)
	return s.FileStore.List(ctx, dir)
}

// Keep passes over the entries it refuses before anything under them is
// listed: a refused rolling directory is not listed.
func TestOpenKeep(t *testing.T) {
	dir := sparktest.Path(t, "spark-events")
	all, err := Open(context.Background(), dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := &listingStore{}
	var asked []string
	logs, err := Open(context.Background(), dir, OpenOptions{Store: st, Keep: func(name string) bool {
		asked = append(asked, name)
		return !strings.HasPrefix(name, "eventlog_v2_") && !strings.HasPrefix(name, "local-")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != len(all) {
		t.Errorf("Keep asked about %d entries, want each of the %d logs once: %v", len(asked), len(all), asked)
	}
	for _, l := range logs {
		if strings.HasPrefix(l.Name, "eventlog_v2_") || strings.HasPrefix(l.Name, "local-") {
			t.Errorf("got %s, which Keep refused", l.Name)
		}
	}
	if len(logs) == 0 || len(logs) == len(all) {
		t.Errorf("got %d of %d logs, want those Keep accepts", len(logs), len(all))
	}
	if len(st.listed) != 1 || st.listed[0] != dir {
		t.Errorf("listed %v, want only %s (not the refused rolling directory)", st.listed, dir)
	}
}

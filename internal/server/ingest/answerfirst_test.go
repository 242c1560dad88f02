package ingest

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestModelAnswersBeforeTheStoreWrite: a finished log's model answers, and
// its report is made from the model, while its analysis is still being
// made and stored (here: the views held back until the test has asked).
func TestModelAnswersBeforeTheStoreWrite(t *testing.T) {
	dir := t.TempDir()
	copySharedLog(t, dir, "local-1422981759269")
	hold, held := make(chan struct{}), make(chan struct{}, 1)
	in, _ := run(t, Config{Roots: []string{dir}, Views: func(Input) (map[string][]byte, error) {
		held <- struct{}{}
		<-hold
		return map[string][]byte{}, nil
	}})
	defer close(hold)
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the views were never made")
	}
	recs := in.Records()
	if len(recs) != 1 || !recs[0].Done || recs[0].AppID != "local-1422981759269" {
		t.Fatalf("while the views are made: got records %+v, want the app's, done", recs)
	}
	key := Key(recs[0].Path)
	a, release, err := in.Attempt(context.Background(), key)
	if err != nil {
		t.Fatalf("while the views are made: Attempt: %v, want the model", err)
	}
	jobs := len(a.Jobs)
	release()
	if jobs == 0 {
		t.Errorf("got a model with no jobs")
	}
	rep, err := in.Report(context.Background(), key)
	var doc struct {
		Schema string `json:"schema"`
	}
	if err != nil || json.Unmarshal(rep, &doc) != nil || doc.Schema == "" {
		t.Errorf("while the views are made: Report: %v, %.80q; want a report made from the model", err, rep)
	}
}

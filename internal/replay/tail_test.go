package replay_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// views are the History Server views a tailed attempt must answer exactly
// as a whole replay does.
var tailViews = []string{"", "/jobs", "/stages", "/stages?details=true", "/allexecutors", "/executors",
	"/environment", "/storage/rdd", "/sql", "/allmiscellaneousprocess"}

func appViews(t *testing.T, a *model.Attempt) map[string]string {
	t.Helper()
	api := historyapi.New(replay.GroupApps([]*model.Attempt{a}))
	api.Now = func() int64 { return 0 }
	out := map[string]string{}
	for _, v := range tailViews {
		got, err := api.Get("/api/v1/applications/" + a.AppID + v)
		if err != nil {
			// Every view answers for a replayed attempt: an error here
			// would make both sides equal without comparing anything.
			t.Fatalf("%s: %v", v, err)
		}
		out[v] = string(historyapi.Marshal(got))
	}
	return out
}

func TestTailMatchesReplay(t *testing.T) {
	for _, name := range []string{"local-1430917381534", "application_1553914137147_0018", "local-1422981780767",
		"app-20161115172038-0000", "local-1642039451826", "app-20200706201101-0003"} { // the last two: SQL with metrics
		t.Run(name, func(t *testing.T) {
			path := sparktest.Path(t, "spark-events", name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, wantSt, err := replay.Read(context.Background(), bytes.NewReader(data), replay.Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			for _, seed := range []uint64{1, 2, 3, 4} {
				rng := rand.New(rand.NewPCG(seed, 0))
				tl := replay.NewTail(replay.Options{Name: name})
				// Seeds 3 and 4 decode as an ingest worker does: into one
				// batch, from one buffer overwritten once a batch is applied.
				reuse := seed >= 3
				var buf []byte
				var batch *replay.TailBatch
				for rest := data; len(rest) > 0; {
					n := min(len(rest), 1+rng.IntN(4096))
					if reuse {
						buf = append(buf[:0], rest[:n]...)
						batch = tl.DecodeInto(batch, buf)
						if err := tl.Apply(batch); err != nil {
							t.Fatal(err)
						}
						clear(buf)
					} else if err := tl.Apply(tl.Decode(rest[:n])); err != nil {
						t.Fatal(err)
					}
					rest = rest[n:]
				}
				if err := tl.Apply(tl.End()); err != nil {
					t.Fatal(err)
				}
				a, err := tl.Model()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a.Stages, want.Stages) {
					t.Errorf("seed %d: the unpacked stages differ from a whole replay's", seed)
				}
				got, wantV := appViews(t, a), appViews(t, want)
				for _, v := range tailViews {
					if got[v] != wantV[v] {
						t.Errorf("seed %d: view %q differs from a whole replay:\ngot  %.300s\nwant %.300s", seed, v, got[v], wantV[v])
					}
				}
				if st := tl.Stats(); st.Bytes != wantSt.Bytes || st.Lines != wantSt.Lines || st.Events != wantSt.Events {
					t.Errorf("seed %d: got %d bytes, %d lines, %d events; a whole replay %d, %d, %d",
						seed, st.Bytes, st.Lines, st.Events, wantSt.Bytes, wantSt.Lines, wantSt.Events)
				}
				if tl.Stats().Events == 0 || tl.Stats().BadLines != 0 {
					t.Errorf("seed %d: got %d events, %d bad lines; want >0 and 0", seed, tl.Stats().Events, tl.Stats().BadLines)
				}
			}
		})
	}
}

func TestTailHoldsPartialLine(t *testing.T) {
	tl := replay.NewTail(replay.Options{Name: "t.inprogress"})
	line := `{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-1","Timestamp":1000,"User":"u"}` + "\n"
	cut := len(line) / 2
	if err := tl.Apply(tl.Decode([]byte(line[:cut]))); err != nil {
		t.Fatal(err)
	}
	if got := tl.Attempt().AppID; got != "" {
		t.Fatalf("after half a line: got app id %q, want none yet", got)
	}
	if got, want := tl.Pending(), cut; got != want {
		t.Errorf("got %d pending bytes, want %d", got, want)
	}
	if err := tl.Apply(tl.Decode([]byte(line[cut:]))); err != nil {
		t.Fatal(err)
	}
	if got := tl.Attempt().AppID; got != "app-1" {
		t.Errorf("after the whole line: got app id %q, want app-1", got)
	}
	// A cut last line at the end of a finished log counts as truncated.
	tl.Apply(tl.Decode([]byte(`{"Event":"SparkListenerJobStart","Job`)))
	if err := tl.Apply(tl.End()); err != nil {
		t.Fatal(err)
	}
	if st := tl.Stats(); !st.Truncated || st.BadLines != 0 || st.Lines != 2 {
		t.Errorf("got truncated=%v bad=%d lines=%d, want true 0 2", st.Truncated, st.BadLines, st.Lines)
	}
}

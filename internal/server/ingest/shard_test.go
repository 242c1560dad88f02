package ingest

import (
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/shard"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestShardSplitsLogs: two ingesters over one directory of real logs,
// shards 0/2 and 1/2, take every log exactly once between them and count
// the other's as passed over.
func TestShardSplitsLogs(t *testing.T) {
	dir := sparktest.Path(t, "spark-events")
	all, _ := run(t, Config{Roots: []string{dir}})
	n := waitDone(t, all, 19).Done
	keys := func(in *Ingester) []string {
		var ks []string
		for _, r := range in.Records() {
			ks = append(ks, r.Key)
		}
		return ks
	}
	want := keys(all)
	var got []string
	for i := range 2 {
		sp := shard.Spec{Index: i, Count: 2}
		t.Run(sp.String(), func(t *testing.T) {
			in, _ := run(t, Config{Roots: []string{dir}, Shard: sp})
			st := waitDone(t, in, 1)
			mine := keys(in)
			if st.Logs == 0 || st.Logs == n {
				t.Errorf("got %d of %d logs, want a share", st.Logs, n)
			}
			if int(st.OtherShard)+st.Logs != n {
				t.Errorf("got %d logs and %d of other shards, want %d in all", st.Logs, st.OtherShard, n)
			}
			for _, k := range mine {
				if slices.Contains(got, k) {
					t.Errorf("%s: taken by both shards", k)
				}
			}
			got = append(got, mine...)
		})
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("shards took %v, want %v", got, want)
	}
}

func TestValidateShard(t *testing.T) {
	c := Config{Roots: []string{"/tmp"}, Store: &store.Store{}, Shard: shard.Spec{Index: 2, Count: 2}}
	if err := c.Validate(); err == nil {
		t.Error("shard 2/2: got nil, want an error")
	}
}

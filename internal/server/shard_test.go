package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/s3"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/peers"
	"github.com/sparkdx/sparkdx/internal/shard"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// shardFleet lays out one prefix of real logs in every form serve reads:
// plain files, a two-attempt application, YARN logs, a plain rolling
// directory, an lz4 rolling directory, zstd and snappy files, and an lz4
// log still being written (.inprogress).
func shardFleet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	events, compressed := sparktest.Path(t, "spark-events"), sparktest.Path(t, "compressed")
	replaced := map[string]string{ // spark-events entry → its other form
		"local-1642039451826":            "local-1642039451826.lz4.inprogress",
		"application_1553914137147_0018": "application_1553914137147_0018.zstd",
		"local-1430917381534":            "local-1430917381534.snappy",
		"app-20200706201101-0003":        "rolling-lz4/eventlog_v2_app-20200706201101-0003",
	}
	ents, err := os.ReadDir(events)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		src, dst := filepath.Join(events, e.Name()), filepath.Join(dir, e.Name())
		if other, ok := replaced[e.Name()]; ok {
			src, dst = filepath.Join(compressed, other), filepath.Join(dir, filepath.Base(other))
		}
		if fi, err := os.Stat(src); err != nil {
			t.Fatal(err)
		} else if fi.IsDir() {
			err = os.CopyFS(dst, os.DirFS(src))
		} else {
			var b []byte
			if b, err = os.ReadFile(src); err == nil {
				err = os.WriteFile(dst, b, 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTwoShardsOneMinIOPrefix runs two serve instances, shards 0/2 and
// 1/2, on one real MinIO prefix: each application is ingested by exactly
// one of them, both list the whole fleet (the same list as one instance
// over everything), a request for an application on the other instance
// is redirected there, and a peer that is down is named, not fatal.
func TestTwoShardsOneMinIOPrefix(t *testing.T) {
	m := sparktest.StartMinIO(t)
	m.Bucket(t, "logs")
	m.Upload(t, "logs", "fleet", shardFleet(t))
	open := eventlog.OpenOptions{S3: s3.Config{Endpoint: "http://" + m.Addr, Region: "us-east-1",
		AccessKey: m.AccessKey, SecretKey: m.SecretKey, PathStyle: true}}
	roots := []string{"s3://logs/fleet"}

	inst := startShards(t, 2, roots, func(ic *ingest.Config, _ *Config) {
		ic.Poll, ic.Open, ic.Watch = 100*time.Millisecond, open, false
	})
	urls := []string{inst[0].url, inst[1].url}
	one := startServerWith(t, t.TempDir(), roots, func(ic *ingest.Config, sc *Config) {
		ic.Poll, ic.Open, ic.Watch = 100*time.Millisecond, open, false
	})
	one.waitIdle(t)
	all := one.in.Status()
	if all.Logs != 19 || all.Errors != 0 {
		t.Fatalf("one instance: got %+v, want 19 logs without errors", all)
	}

	// Each log is ingested by exactly one instance.
	owned := map[string]int{}
	for i, ts := range inst {
		st := ts.in.Status()
		if st.Logs == 0 || int(st.OtherShard)+st.Logs != all.Logs || st.Errors != 0 {
			t.Errorf("instance %d: got %d logs, %d of the other shard, %d errors; want a share of %d, no errors",
				i, st.Logs, st.OtherShard, st.Errors, all.Logs)
		}
		var l peers.ShardList
		ts.getJSON(t, "/api/sparkdx/v1/shard", &l)
		for _, r := range l.Records {
			if prev, ok := owned[r.Name]; ok {
				t.Errorf("%s: ingested by instances %d and %d", r.Name, prev, i)
			}
			owned[r.Name] = i
		}
	}
	for _, r := range one.in.Records() {
		if _, ok := owned[r.Name]; !ok {
			t.Errorf("%s: ingested by neither instance", r.Name)
		}
	}
	if len(owned) != len(one.in.Records()) {
		t.Errorf("the instances ingested %d logs, want %d", len(owned), len(one.in.Records()))
	}

	// The fleet is complete and the same from either instance.
	appIDs := func(ts *testServer, query string) []string {
		var apps []fleet.AppSummary
		ts.getJSON(t, "/api/sparkdx/v1/apps"+query, &apps)
		var ids []string
		for _, a := range apps {
			ids = append(ids, a.ID+"/"+a.AttemptID+" "+a.Status)
		}
		return ids
	}
	for _, q := range []string{"", "?sort=name", "?sort=-duration&length=5&offset=3", "?status=running", "?q=local"} {
		want := appIDs(one, q)
		for i, ts := range inst {
			start := time.Now()
			got := appIDs(ts, q)
			if q == "" {
				t.Logf("instance %d: merged list of %d attempts in %v", i, len(got), time.Since(start))
			}
			if !slices.Equal(got, want) {
				t.Errorf("instance %d: GET /api/sparkdx/v1/apps%s:\n got %v\nwant %v", i, q, got, want)
			}
		}
	}
	for _, p := range []string{"/api/v1/applications", "/api/v1/applications?status=completed&limit=4"} {
		_, b := one.get(t, p)
		want, _ := json.Marshal(hstest.DecodeNorm(t, b))
		for i, ts := range inst {
			_, b := ts.get(t, p)
			got, _ := json.Marshal(hstest.DecodeNorm(t, b))
			if string(got) != string(want) {
				t.Errorf("instance %d: GET %s:\n got %.400s\nwant %.400s", i, p, got, want)
			}
		}
	}
	for i, ts := range inst {
		code, b := ts.get(t, "/")
		if code != 200 || strings.Count(string(b), "<tr data-app=") != 19 {
			t.Errorf("instance %d: fleet page: got %d with %d rows, want 200 with 19", i, code, strings.Count(string(b), "<tr data-app="))
		}
	}

	// A request for the other instance's application is redirected there.
	var elsewhere string // an application instance 1 owns
	for _, r := range inst[1].in.Records() {
		if r.AppID != "" {
			elsewhere = r.AppID
			break
		}
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/apps/" + elsewhere, "/api/v1/applications/" + elsewhere + "/jobs", "/api/sparkdx/v1/apps/" + elsewhere + "/report"} {
		resp, err := noFollow.Get(urls[0] + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusTemporaryRedirect || loc != urls[1]+p {
			t.Errorf("GET %s on instance 0: got %d to %q, want 307 to %s", p, resp.StatusCode, loc, urls[1]+p)
		}
		if code, _ := inst[0].get(t, p); code != 200 { // followed
			t.Errorf("GET %s on instance 0, redirect followed: got %d, want 200", p, code)
		}
	}
	if code, _ := inst[0].get(t, "/apps/local-9999999999999"); code != 404 {
		t.Errorf("an application nobody has: got %d, want 404 (from its hash owner)", code)
	}

	// Agents' telemetry sent to both (as a Collector fanning out does):
	// each application's points are kept by its owner alone; those of an
	// application not indexed yet by the shard its id hashes to.
	var here string // an application instance 0 owns
	for _, r := range inst[0].in.Records() {
		if r.AppID != "" {
			here = r.AppID
			break
		}
	}
	unknown := "local-9999999999999"
	t0 := time.Now().Add(-time.Minute)
	for _, ts := range inst {
		for _, app := range []string{here, elsewhere, unknown} {
			agentPush(t, ts.url, app, []string{"driver", "1"}, t0, 3)
		}
	}
	for _, c := range []struct {
		app   string
		owner int
	}{{here, 0}, {elsewhere, 1}, {unknown, shard.Spec{Count: 2}.OwnerOfApp(unknown)}} {
		for i, ts := range inst {
			xs, err := ts.st.Samples(c.app)
			if err != nil {
				t.Fatal(err)
			}
			if own := i == c.owner; own != (len(xs) > 0) {
				t.Errorf("%s's samples on instance %d (owner %d): got %d", c.app, i, c.owner, len(xs))
			}
		}
	}

	// A peer that is down: the list is what is left, and says so.
	inst[1].stop()
	inst[1].stop = nil
	time.Sleep(peers.TTL + 100*time.Millisecond)
	resp, err := http.Get(urls[0] + "/api/sparkdx/v1/apps")
	if err != nil {
		t.Fatal(err)
	}
	var apps []fleet.AppSummary
	err = json.NewDecoder(resp.Body).Decode(&apps)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("X-Sparkdx-Peers-Down") != urls[1] || len(apps) != len(inst[0].srv.summaries()) {
		t.Errorf("peer down: got %d, %v, X-Sparkdx-Peers-Down %q, %d apps; want 200 naming %s with instance 0's %d",
			resp.StatusCode, err, resp.Header.Get("X-Sparkdx-Peers-Down"), len(apps), urls[1], len(inst[0].srv.summaries()))
	}
	if code, b := inst[0].get(t, "/"); code != 200 || !strings.Contains(string(b), "peer-down") || !strings.Contains(string(b), urls[1]) {
		t.Errorf("fleet page with a peer down: got %d, want 200 naming %s", code, urls[1])
	}
}

// startShards starts n instances over roots that know each other, with
// Peers changed by set.
func startShards(t testing.TB, n int, roots []string, set func(*ingest.Config, *Config)) []*testServer {
	t.Helper()
	var lns []net.Listener
	var urls []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns, urls = append(lns, ln), append(urls, "http://"+ln.Addr().String())
	}
	var inst []*testServer
	for i := range n {
		sp := shard.Spec{Index: i, Count: n}
		inst = append(inst, startServerOn(t, lns[i], t.TempDir(), roots, func(ic *ingest.Config, sc *Config) {
			ic.Poll, ic.Shard = 50*time.Millisecond, sp
			sc.Peers = peers.Config{Shard: sp, URLs: urls}
			set(ic, sc)
		}))
	}
	for _, ts := range inst {
		ts.waitIdle(t)
	}
	return inst
}

// With Peers.Proxy an instance answers for the owner (clients that cannot
// reach the peers' URLs), and a request nobody can answer ends in a 404,
// not a loop.
func TestShardProxy(t *testing.T) {
	inst := startShards(t, 3, []string{sparktest.Path(t, "spark-events")}, func(_ *ingest.Config, sc *Config) {
		sc.Peers.Proxy = true
	})
	for owner, ts := range inst {
		for _, r := range ts.in.Records() {
			if r.AppID == "" {
				continue
			}
			for i, via := range inst {
				p := "/api/v1/applications/" + r.AppID + "/jobs"
				code, got := via.get(t, p)
				_, want := ts.get(t, p)
				if code != 200 || string(got) != string(want) {
					t.Errorf("GET %s via instance %d (owner %d): got %d %.80s, want the owner's %.80s", p, i, owner, code, got, want)
				}
			}
			break
		}
	}
	for i, ts := range inst {
		if code, _ := ts.get(t, "/apps/local-9999999999999"); code != 404 {
			t.Errorf("an application nobody has, via instance %d: got %d, want 404", i, code)
		}
	}
}

// Instances sharing a bearer token ask each other with it: the merged
// list is complete and a forwarded request is authorised where it lands.
func TestShardsWithToken(t *testing.T) {
	inst := startShards(t, 2, []string{sparktest.Path(t, "spark-events")}, func(_ *ingest.Config, sc *Config) {
		sc.AuthToken, sc.Peers.Proxy = "s3cret", true
	})
	for i, ts := range inst {
		var apps []fleet.AppSummary
		ts.getJSON(t, "/api/sparkdx/v1/apps", &apps)
		if len(apps) != 19 {
			t.Errorf("instance %d: got %d attempts, want 19 (both instances')", i, len(apps))
		}
	}
	for _, r := range inst[1].in.Records() {
		if r.AppID == "" {
			continue
		}
		if code, b := inst[0].get(t, "/api/sparkdx/v1/apps/"+r.AppID); code != 200 {
			t.Errorf("instance 1's %s through instance 0: got %d %.100s, want 200", r.AppID, code, b)
		}
		break
	}
}

// BenchmarkPeerList: one merged fleet list with the peer asked anew (its
// answer is otherwise reused for a second), two instances over the real
// logs on this machine.
func BenchmarkPeerList(b *testing.B) {
	inst := startShards(b, 2, []string{sparktest.Path(b, "spark-events")}, func(*ingest.Config, *Config) {})
	s := inst[0].srv
	b.ReportAllocs()
	for b.Loop() {
		s.peers.Expire()
		if f := s.fleetApps(context.Background()); len(f.Apps) != 19 || len(f.Down) != 0 {
			b.Fatalf("got %d attempts, %v down; want 19, none", len(f.Apps), f.Down)
		}
	}
}

// --peers out of shard order is found, not followed: each peer answering
// as another shard is named as down.
func TestShardPeersOutOfOrder(t *testing.T) {
	inst := startShards(t, 2, []string{sparktest.Path(t, "spark-events")}, func(_ *ingest.Config, sc *Config) {
		if sc.Peers.Shard.Index == 0 { // instance 1 listed as shard 0
			sc.Peers.URLs = []string{sc.Peers.URLs[1], sc.Peers.URLs[0]}
			sc.Peers.Shard = shard.Spec{Index: 1, Count: 2}
		}
	})
	s := inst[0].srv
	f := s.fleetApps(context.Background())
	if len(f.Down) != 1 || f.Down[0].URL != inst[1].url || !strings.Contains(f.Down[0].Error, `as shard "1/2", want 0/2`) {
		t.Errorf("got down %v, want %s named as answering for shard 1/2", f.Down, inst[1].url)
	}
}

package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// Two `sparkdx serve --shard I/2 --peers ...` on one MinIO prefix and one
// set of Delta tables: each finished application lands in the apps table
// exactly once, written by the instance that owns it; both list the whole
// fleet, and an application page on the other instance redirects to its
// owner.
func TestServeTwoShards(t *testing.T) {
	m := sparktest.StartMinIO(t)
	m.Bucket(t, "logs")
	logs := t.TempDir()
	apps := []string{"local-1422981759269", "local-1430917381534", "app-20161116163331-0000", "local-1425081759269",
		"application_1516285256255_0012", "app-20180109111548-0000", "local-1430917381535_1", "local-1430917381535_2"}
	sparktest.CopyLogs(t, logs, apps...)
	m.Upload(t, "logs", "spark", logs)
	t.Setenv("AWS_ACCESS_KEY_ID", m.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", m.SecretKey)
	t.Setenv("AWS_REGION", "us-east-1")
	lake := t.TempDir()
	addrs := []string{sparktest.FreeAddr(t), sparktest.FreeAddr(t)}
	peers := "http://" + addrs[0] + ",http://" + addrs[1]
	var inst []*inServe
	for i, addr := range addrs {
		inst = append(inst, runServeInProcessAt(t, addr, "--event-logs", "s3://logs/spark", "--s3-endpoint", "http://"+m.Addr,
			"--s3-path-style", "--data", t.TempDir(), "--delta", lake, "--shard", []string{"sparkdx-serve-0/2", "1/2"}[i], "--peers", peers))
	}
	var want []string // every attempt, "id/attempt"
	for i, s := range inst {
		st := s.waitIdle(t)
		if st["otherShard"].(float64) == 0 || st["logs"].(float64) == 0 {
			t.Errorf("instance %d: got %v logs and %v of the other shard, want a share of each", i, st["logs"], st["otherShard"])
		}
	}
	for i, s := range inst {
		var list []struct {
			ID        string `json:"id"`
			AttemptID string `json:"attemptId"`
		}
		if err := json.Unmarshal(s.get(t, "/api/sparkdx/v1/apps"), &list); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range list {
			got = append(got, a.ID+"/"+a.AttemptID)
		}
		slices.Sort(got)
		if i == 0 {
			want = got
		}
		if len(got) != len(apps) || !slices.Equal(got, want) {
			t.Errorf("instance %d: fleet %v, want all %d attempts, the same from either", i, got, len(apps))
		}
	}

	// An app page on the instance that does not own the app redirects.
	var mine struct {
		Apps []struct {
			ID string `json:"id"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(inst[1].get(t, "/api/sparkdx/v1/shard"), &mine); err != nil || len(mine.Apps) == 0 {
		t.Fatalf("instance 1's own apps: %v, %v", mine, err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(inst[0].url + "/apps/" + mine.Apps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusTemporaryRedirect || !strings.HasPrefix(loc, inst[1].url+"/apps/") {
		t.Errorf("app page on the other instance: got %d to %q, want 307 to %s", resp.StatusCode, loc, inst[1].url)
	}

	for i, s := range inst {
		if code := s.stop(); code != 0 {
			t.Fatalf("instance %d exited %d:\n%s", i, code, s.logs)
		}
	}
	var ids []string
	for _, a := range readRows[delta.AppRow](t, lake, delta.TableApps) {
		ids = append(ids, a.AppID+"/"+a.AttemptID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, want) {
		t.Errorf("Delta apps table: got %v, want each attempt exactly once: %v", ids, want)
	}
}

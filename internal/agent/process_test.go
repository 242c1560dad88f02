package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestProcessCollectorFixture(t *testing.T) {
	page := uint64(os.Getpagesize())
	p := byPID(sample(t, fixtureAgent(t, filepath.Join("testdata", "node1"), Config{})))[100]
	checks := []struct {
		name      string
		got, want any
	}{
		{"rss", p.RSSBytes, uint64(2000000 * 1024)},
		{"pss", p.PSSBytes, uint64(1900000 * 1024)},
		{"rss peak", p.RSSPeakBytes, uint64(2500000 * 1024)},
		{"cpu user", p.CPUUserSeconds, 123.45},
		{"cpu system", p.CPUSystemSeconds, 6.78},
		{"threads", p.Threads, 64},
		{"fds", p.OpenFDs, 5},
		{"read", p.ReadBytes, uint64(1048576)},
		{"write", p.WriteBytes, uint64(2097152)},
		{"state", p.State, "S"},
		{"uid", p.UID, 1000},
		{"start", p.StartTime, int64(1700000000*1000 + 5000*10)},
		{"children", len(p.Children), 3},
		{"tree jvm", p.Tree[KindJVM], TreeSum{Processes: 1, RSSBytes: 2000000 * 1024, PSSBytes: 1900000 * 1024, CPUUserSeconds: 123.45, CPUSystemSeconds: 6.78}},
		{"tree python", p.Tree[KindPython], TreeSum{Processes: 2, RSSBytes: (5000 + 20000) * page, PSSBytes: (15000 + 60000) * 1024, CPUUserSeconds: 4, CPUSystemSeconds: 0.6}},
		{"tree other", p.Tree[KindOther], TreeSum{Processes: 1, RSSBytes: 200 * page, PSSBytes: 300 * 1024, CPUUserSeconds: 0.01, CPUSystemSeconds: 0.01}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	names := map[int]string{}
	for _, c := range p.Children {
		names[c.PID] = string(c.Kind) + ":" + c.Name
	}
	want := map[int]string{101: "python:pyspark.daemon", 102: "python:pyspark.daemon", 103: "other:bash"}
	for pid, w := range want {
		if names[pid] != w {
			t.Errorf("child %d: got %q, want %q", pid, names[pid], w)
		}
	}
}

func TestPSSReuse(t *testing.T) {
	for _, tt := range []struct {
		name  string
		every time.Duration
		want  uint64
	}{{"reused within PSSEvery", time.Hour, 1900000 * 1024}, {"read every cycle", -1, 42 * 1024}} {
		t.Run(tt.name, func(t *testing.T) {
			root := copyFixture(t, "node1")
			a := fixtureAgent(t, root, Config{PSSEvery: tt.every})
			sample(t, a)
			rollup := "00400000-7fff00000000 ---p 00000000 00:00 0 [rollup]\nRss: 100 kB\nPss: 42 kB\n"
			if err := os.WriteFile(filepath.Join(root, "proc", "100", "smaps_rollup"), []byte(rollup), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := byPID(sample(t, a))[100].PSSBytes; got != tt.want {
				t.Errorf("got PSS %d, want %d", got, tt.want)
			}
		})
	}
}

// TestPSSRereadWhenMoved: past PSSEvery a PSS is read again only when the
// process's resident size moved by more than a tenth, when its tree gained
// or lost a process, or after thirty times PSSEvery.
func TestPSSRereadWhenMoved(t *testing.T) {
	const old, fresh = 1900000 * 1024, 42 * 1024
	for _, tt := range []struct {
		name  string
		after time.Duration
		move  func(t *testing.T, root string)
		want  uint64
	}{
		{"within PSSEvery, RSS doubled", 30 * time.Second, setRSSPages(1000000), old},
		{"past PSSEvery, nothing moved", 2 * time.Minute, nil, old},
		{"past PSSEvery, RSS up 5 %", 2 * time.Minute, setRSSPages(525000), old},
		{"past PSSEvery, RSS up 20 %", 2 * time.Minute, setRSSPages(600000), fresh},
		{"past PSSEvery, a worker gone", 2 * time.Minute, func(t *testing.T, root string) {
			if err := os.RemoveAll(filepath.Join(root, "proc", "102")); err != nil {
				t.Fatal(err)
			}
		}, fresh},
		{"thirty times PSSEvery", 30 * time.Minute, nil, fresh}, {"past PSSEvery, nothing moved, 20 min", 20 * time.Minute, nil, old},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := copyFixture(t, "node1")
			a := fixtureAgent(t, root, Config{PSSEvery: time.Minute})
			now := time.Unix(1_800_000_000, 0)
			a.clock = func() time.Time { return now }
			sample(t, a)
			rollup := "00400000-7fff00000000 ---p 00000000 00:00 0 [rollup]\nRss: 100 kB\nPss: 42 kB\n"
			if err := os.WriteFile(filepath.Join(root, "proc", "100", "smaps_rollup"), []byte(rollup), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.move != nil {
				tt.move(t, root)
			}
			now = now.Add(tt.after)
			if got := byPID(sample(t, a))[100].PSSBytes; got != tt.want {
				t.Errorf("got PSS %d, want %d", got, tt.want)
			}
		})
	}
}

// setRSSPages rewrites the resident pages (stat field 24) of fixture
// process 100 (500,000 pages).
func setRSSPages(pages int) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		p := filepath.Join(root, "proc", "100", "stat")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(b), " 500000 ", " "+strconv.Itoa(pages)+" ", 1)
		if s == string(b) {
			t.Fatalf("%s: no resident pages 500000 in %q", p, b)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

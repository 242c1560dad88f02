package shard

import (
	"fmt"
	"testing"
)

func TestLogKeyForms(t *testing.T) {
	cases := []struct{ name, want string }{
		{"app-20240101120000-0001", "app-20240101120000-0001"},
		{"app-20240101120000-0001.lz4", "app-20240101120000-0001"},
		{"app-20240101120000-0001.zstd.inprogress", "app-20240101120000-0001"},
		{"app-20240101120000-0001.inprogress", "app-20240101120000-0001"},
		{"eventlog_v2_app-20240101120000-0001", "app-20240101120000-0001"},
		{"local-1700000000000.snappy", "local-1700000000000"},
		{"application_1700000000000_0042_1", "application_1700000000000_0042"},
		{"application_1700000000000_0042_2.lz4.inprogress", "application_1700000000000_0042"},
		{"eventlog_v2_application_1700000000000_0042_1", "application_1700000000000_0042"},
		{"application_1700000000000_0042", "application_1700000000000_0042"},
		{"local-1430917381535_2", "local-1430917381535"},
		{"eventlog_v2_local-1430917381535_1", "local-1430917381535"},
		{"spark-0a1b2c3d", "spark-0a1b2c3d"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := LogKey(c.name); got != c.want {
				t.Errorf("LogKey(%q) = %q, want %q", c.name, got, c.want)
			}
		})
	}
}

func TestAppKeyMatchesLogName(t *testing.T) {
	cases := []struct{ appID, logName string }{
		{"app-20240101120000-0001", "app-20240101120000-0001.lz4"},
		{"local-1700000000000", "eventlog_v2_local-1700000000000"},
		{"application_1700000000000_0042", "application_1700000000000_0042_1.zstd"},
		{"Spark App.1", "spark-app_1.inprogress"},
		{"local-1430917381535", "local-1430917381535_2"},
	}
	for _, c := range cases {
		t.Run(c.appID, func(t *testing.T) {
			if a, l := AppKey(c.appID), LogKey(c.logName); a != l {
				t.Errorf("AppKey(%q) = %q, LogKey(%q) = %q, want equal", c.appID, a, c.logName, l)
			}
		})
	}
}

// TestOfFixed pins the hash: changing it moves applications between
// running instances on an upgrade. The values were computed apart from
// this code (FNV-1a 32 of the key's bytes, modulo n).
func TestOfFixed(t *testing.T) {
	cases := []struct {
		key  string
		n    int
		want int
	}{
		{"", 7, int(uint32(2166136261) % 7)},
		{"app-20240101120000-0001", 2, 0},
		{"app-20240101120000-0001", 3, 1},
		{"local-1700000000000", 2, 1},
		{"application_1700000000000_0042", 5, 0},
	}
	for _, c := range cases {
		if got := Of(c.key, c.n); got != c.want {
			t.Errorf("Of(%q, %d) = %d, want %d", c.key, c.n, got, c.want)
		}
	}
}

func TestOfBalanced(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8} {
		counts := make([]int, n)
		const ids = 20000
		for i := range ids {
			counts[Of(fmt.Sprintf("app-20240101%06d-%04d", i/7, i%10000), n)]++
		}
		want := ids / n
		for s, c := range counts {
			if c < want*9/10 || c > want*11/10 {
				t.Errorf("n=%d: shard %d got %d of %d ids, want within 10%% of %d", n, s, c, ids, want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		bad  bool
	}{
		{"", Spec{}, false},
		{"0/2", Spec{0, 2}, false},
		{"2/3", Spec{2, 3}, false},
		{"sparkdx-serve-2/3", Spec{2, 3}, false},
		{"sparkdx-serve-3/3", Spec{}, true},
		{"sparkdx-serve/3", Spec{}, true},
		{"0/1", Spec{0, 1}, false},
		{"2/2", Spec{}, true},
		{"-1/2", Spec{}, true},
		{"1", Spec{}, true},
		{"a/b", Spec{}, true},
		{"0/0", Spec{}, true},
	} {
		got, err := Parse(c.in)
		if (err != nil) != c.bad || !c.bad && got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestOwnsEveryForm(t *testing.T) {
	a, b := Spec{0, 2}, Spec{1, 2}
	for _, name := range []string{"app-1", "app-1.lz4", "app-1.inprogress", "eventlog_v2_app-1", "app-2.zstd", "eventlog_v2_app-3"} {
		if a.Owns(name) == b.Owns(name) {
			t.Errorf("%s: owned by both or neither of 0/2 and 1/2", name)
		}
		if a.Owns(name) != a.Owns("eventlog_v2_"+LogKey(name)) {
			t.Errorf("%s: owner differs from its rolling form's", name)
		}
	}
	if !(Spec{}).Owns("anything") {
		t.Error("the zero Spec owns nothing, want everything")
	}
}

package main

import (
	"errors"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	files := fakeFiles
	v2 := files(map[string]string{cgroupV2Limit: "2147483648\n"})
	for _, c := range []struct {
		name, flag, env string
		read            func(string) ([]byte, error)
		want            int64
		from            string
		err             bool
	}{
		{"auto takes 90% of the v2 limit", "auto", "", v2, 1932735283, "90% of " + cgroupV2Limit + " (2147483648 bytes)", false},
		{"auto takes the v1 limit", "auto", "", files(map[string]string{cgroupV1Limit: "1000"}), 900, "90% of " + cgroupV1Limit + " (1000 bytes)", false},
		{"auto leaves GOMEMLIMIT", "auto", "1GiB", v2, 0, "GOMEMLIMIT", false},
		{"no cgroup limit (v2 max)", "auto", "", files(map[string]string{cgroupV2Limit: "max\n"}), 0, "none", false},
		{"no cgroup limit (v1 near 2^63)", "auto", "", files(map[string]string{cgroupV1Limit: "9223372036854771712"}), 0, "none", false},
		{"no cgroup", "auto", "", files(nil), 0, "none", false},
		{"off", "off", "", v2, 0, "off", false},
		{"a size", "1536MiB", "2GiB", v2, 1536 << 20, "--memory-limit", false},
		{"bytes", "1000000", "", v2, 1000000, "--memory-limit", false},
		{"not a size", "lots", "", v2, 0, "", true},
		{"zero", "0", "", v2, 0, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, from, err := memoryLimit(c.flag, c.env, c.read)
			if (err != nil) != c.err {
				t.Fatalf("got error %v, want error %v", err, c.err)
			}
			if got != c.want || from != c.from {
				t.Errorf("got %d from %q, want %d from %q", got, from, c.want, c.from)
			}
		})
	}
}

// TestMemoryLimitUpTo: a one-shot command's auto limit is the smaller of
// its target and the cgroup's share; GOMEMLIMIT and the flag win.
func TestMemoryLimitUpTo(t *testing.T) {
	files := fakeFiles
	const target = 200 << 20
	for _, c := range []struct {
		name, flag, env string
		read            func(string) ([]byte, error)
		want            int64
		from            string
	}{
		{"no cgroup", "auto", "", files(nil), target, "one-shot default"},
		{"a large cgroup", "auto", "", files(map[string]string{cgroupV2Limit: "2147483648"}), target, "one-shot default"},
		{"a small cgroup", "auto", "", files(map[string]string{cgroupV2Limit: "134217728"}), 120795955, "90% of " + cgroupV2Limit + " (134217728 bytes)"},
		{"GOMEMLIMIT", "auto", "1GiB", files(nil), 0, "GOMEMLIMIT"},
		{"a size", "2GiB", "", files(nil), 2 << 30, "--memory-limit"},
		{"off", "off", "", files(nil), 0, "off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, from, err := memoryLimitUpTo(c.flag, c.env, c.read, target)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || from != c.from {
				t.Errorf("got %d from %q, want %d from %q", got, from, c.want, c.from)
			}
		})
	}
}

// fakeFiles reads the files of m by name, and fails for any other.
func fakeFiles(m map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if s, ok := m[name]; ok {
			return []byte(s), nil
		}
		return nil, errors.New("no such file")
	}
}

package main

import (
	"errors"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if s, ok := m[name]; ok {
				return []byte(s), nil
			}
			return nil, errors.New("no such file")
		}
	}
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

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Where serve finds its container's memory limit: the cgroup v2 file, then
// the v1 one (a container sees its own cgroup at /sys/fs/cgroup).
const (
	cgroupV2Limit = "/sys/fs/cgroup/memory.max"
	cgroupV1Limit = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
)

// cgroupLimitShare is the share of the container's limit given to the Go
// heap's soft limit: the rest is for what the limit counts besides (goroutine
// stacks, the store's mapped pages, the page cache of the logs read).
const cgroupLimitShare = 0.9

// memoryLimit decides serve's soft memory limit (runtime/debug.SetMemoryLimit)
// from --memory-limit: "auto" leaves GOMEMLIMIT (env, as the runtime already
// read it) alone when set, else takes cgroupLimitShare of the cgroup limit
// readFile finds; "off" sets none; anything else is a size (2GiB, 1536MiB,
// 2000000000). It returns the limit in bytes (0: leave the runtime's), and
// where it came from, for the log.
func memoryLimit(flag, env string, readFile func(string) ([]byte, error)) (limit int64, from string, err error) {
	return memoryLimitUpTo(flag, env, readFile, 0)
}

// memoryLimitUpTo is memoryLimit where "auto" without GOMEMLIMIT takes at
// most target (0: no bound): the cgroup's share when smaller, else target.
func memoryLimitUpTo(flag, env string, readFile func(string) ([]byte, error), target int64) (limit int64, from string, err error) {
	switch flag {
	case "off":
		return 0, "off", nil
	case "auto", "":
	default:
		n, err := parseSize(flag)
		if err != nil {
			return 0, "", fmt.Errorf("--memory-limit %q: %w", flag, err)
		}
		return n, "--memory-limit", nil
	}
	if env != "" {
		return 0, "GOMEMLIMIT", nil
	}
	for _, f := range []string{cgroupV2Limit, cgroupV1Limit} {
		b, err := readFile(f)
		if err != nil {
			continue
		}
		if n, ok := parseCgroupLimit(b); ok {
			share := int64(float64(n) * cgroupLimitShare)
			if target > 0 && target < share {
				return target, "one-shot default", nil
			}
			return share, fmt.Sprintf("%.0f%% of %s (%d bytes)", cgroupLimitShare*100, f, n), nil
		}
	}
	if target > 0 {
		return target, "one-shot default", nil
	}
	return 0, "none", nil
}

// parseCgroupLimit reads a cgroup memory limit: "max" (v2) or a byte
// count, where v1 writes a value near 2^63 for none. ok is false for none.
func parseCgroupLimit(b []byte) (int64, bool) {
	s := string(bytes.TrimSpace(b))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= math.MaxInt64/2 {
		return 0, false
	}
	return n, true
}

// parseSize reads a byte count with GOMEMLIMIT's suffixes (B, KiB, MiB,
// GiB, TiB) or none.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, errors.New("want a size: bytes, or a number with B, KiB, MiB, GiB or TiB")
	}
	if n <= 0 || n > math.MaxInt64/mult {
		return 0, errors.New("want a size above zero")
	}
	return n * mult, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/sparkdx/sparkdx/internal/historyapi"
)

func runVersion(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
	bi, _ := debug.ReadBuildInfo()
	_, err := fmt.Fprintln(stdout, versionLine(bi))
	return err
}

// versionLine says which sparkdx this is, from what the Go toolchain
// recorded in the binary: the module version (a tagged `go install`), the
// commit it was built from and whether the tree had uncommitted changes
// (`go build` in a git checkout, `make build`), and the Go version.
func versionLine(bi *debug.BuildInfo) string {
	if bi == nil {
		return "sparkdx devel (no build information)"
	}
	v := "devel"
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	s := map[string]string{}
	for _, kv := range bi.Settings {
		s[kv.Key] = kv.Value
	}
	var parts []string
	switch rev := s["vcs.revision"]; {
	case rev == "":
		parts = append(parts, "commit unknown (built outside a git checkout, or by go run)")
	case s["vcs.modified"] == "true":
		parts = append(parts, "commit "+rev+" with uncommitted changes")
	default:
		parts = append(parts, "commit "+rev)
	}
	if t := s["vcs.time"]; t != "" {
		parts = append(parts, "committed "+t)
	}
	parts = append(parts, bi.GoVersion, "History Server API of Spark "+historyapi.SparkVersion)
	return "sparkdx " + v + " (" + strings.Join(parts, ", ") + ")"
}

package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/sparkdx/sparkdx/internal/historyapi"
)

func runVersion(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	_, err := fmt.Fprintf(stdout, "sparkdx %s (History Server API of Spark %s)\n", v, historyapi.SparkVersion)
	return err
}

package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

func runVersion(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	_, err := fmt.Fprintf(stdout, "sparkdx %s\n", v)
	return err
}

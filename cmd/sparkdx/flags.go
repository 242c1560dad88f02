package main

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// parseFlags parses args with fs the way people type commands: flags may
// come before or after the operands (`sparkdx analyze LOG --format json`),
// "--" ends the flags, "-" is an operand (standard input). -h, -help and
// --help print the command's flags to stdout and end it with exit 0.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout)
			fs.Usage()
			return &exitError{code: 0}
		}
	}
	if err := fs.Parse(flagsFirst(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: 0}
		}
		return usageErr("%v", err)
	}
	return nil
}

// flagsFirst moves every flag of args (with its value, unless it is a
// boolean flag) before the operands, which follow a "--".
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // fs.Parse names the unknown flag
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(append(flags, "--"), operands...)
}

package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/sparkdx/sparkdx/internal/s3"
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
			printHelp(fs, stdout)
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

// printHelp prints fs's usage with each flag spelled --name (-o for a
// one-letter one), as the documentation and the usage lines spell them;
// both spellings parse.
func printHelp(fs *flag.FlagSet, w io.Writer) {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.Usage()
	fs.SetOutput(w)
	for line := range strings.Lines(b.String()) {
		rest, ok := strings.CutPrefix(line, "  -")
		if name, _, _ := strings.Cut(strings.TrimSpace(rest), " "); ok && len(name) > 1 && !strings.HasPrefix(rest, "-") {
			line = "  --" + rest // one-letter flags keep one dash: -o FILE
		}
		if name, ok := strings.CutPrefix(line, "Usage of "); ok {
			line = "usage of sparkdx " + name
		}
		io.WriteString(w, line)
	}
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

// s3Flags are the S3 settings of every command that reads or writes
// s3://, s3a:// or s3n:// paths: event logs and Delta tables alike.
type s3Flags struct {
	endpoint, region string
	pathStyle        bool
}

func addS3Flags(fs *flag.FlagSet) *s3Flags {
	f := &s3Flags{}
	fs.StringVar(&f.endpoint, "s3-endpoint", "", "S3 endpoint URL for s3:// paths (default $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL or AWS); credentials from the AWS environment")
	fs.StringVar(&f.region, "s3-region", "", "S3 region (default $AWS_REGION)")
	fs.BoolVar(&f.pathStyle, "s3-path-style", false, "address buckets in the path (the default for endpoints other than AWS)")
	return f
}

// config is the flags' settings, the AWS environment filling the rest.
func (f *s3Flags) config() s3.Config {
	return s3.Config{Endpoint: f.endpoint, Region: f.region, PathStyle: f.pathStyle}.WithEnv(nil)
}

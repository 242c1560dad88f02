package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/s3"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

// summaryAuto is --output-summaries' value that reads each write's own
// _SUCCESS where its plan says it wrote.
const summaryAuto = "auto"

// maxSummaryWarnings bounds the warnings about summaries that could not
// be read: the first few say what is wrong, a count the rest.
const maxSummaryWarnings = 5

// summaries finds the committers' summaries for --output-summaries: the
// tree of copies DIR (read once for every log), or with auto each
// write's output path — local ones from disk, s3a:// ones through the S3
// settings (--s3-endpoint and the AWS environment).
type summaries struct {
	from   string // "", "auto" or a directory
	s3     s3.Config
	tree   []*s3a.Summary
	read   bool
	open   s3a.OpenObject
	stderr io.Writer
}

// validate checks --output-summaries before any log is read.
func (s *summaries) validate() error {
	if s.from == "" || s.from == summaryAuto {
		return nil
	}
	st, err := os.Stat(s.from)
	if err != nil {
		return usageErr("--output-summaries %s: %v", s.from, err)
	}
	if !st.IsDir() {
		return usageErr("--output-summaries %s: not a directory (want DIR or auto)", s.from)
	}
	return nil
}

// of returns the summaries for one attempt's writes; nil without the flag.
func (s *summaries) of(ctx context.Context, a *model.Attempt, res *analyze.Result) []*s3a.Summary {
	switch s.from {
	case "":
		return nil
	case summaryAuto:
		var paths []string
		for _, w := range analyze.OutputWrites(a, res) {
			paths = append(paths, w.Path)
		}
		sums, errs := s3a.ReadOutputs(ctx, paths, s.opener(), s3a.DefaultLimits)
		s.warn(errs)
		return sums
	}
	if !s.read {
		var errs []error
		s.tree, errs = s3a.ReadTree(os.DirFS(s.from), filepath.Clean(s.from), s3a.DefaultLimits)
		s.read = true
		s.warn(errs)
	}
	return s.tree
}

func (s *summaries) warn(errs []error) {
	for i, err := range errs {
		if i == maxSummaryWarnings {
			fmt.Fprintf(s.stderr, "sparkdx analyze: warning: %d more summaries could not be read\n", len(errs)-i)
			return
		}
		fmt.Fprintf(s.stderr, "sparkdx analyze: warning: output summary: %v\n", err)
	}
}

// opener reads S3 objects through the S3 settings, made once; a client
// that cannot be made leaves s3a:// summaries unread (ErrNoStore).
func (s *summaries) opener() s3a.OpenObject {
	if s.open != nil {
		return s.open
	}
	c, err := s3.NewClient(s.s3)
	if err != nil {
		fmt.Fprintf(s.stderr, "sparkdx analyze: warning: output summaries on S3: %v\n", err)
		return nil
	}
	s.open = func(ctx context.Context, bucket, key string) (io.ReadCloser, error) {
		obj, err := c.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
		if err != nil {
			return nil, err
		}
		if _, err := obj.Stat(); err != nil {
			obj.Close()
			if s3.IsNotFound(err) {
				return nil, fs.ErrNotExist
			}
			return nil, err
		}
		return obj, nil
	}
	return s.open
}

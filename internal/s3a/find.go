package s3a

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Limits bound how much a search for summaries reads.
type Limits struct {
	MaxEntries   int // directory entries visited under a root
	MaxSummaries int // summaries read
}

// DefaultLimits suit one application's outputs: a directory of copied
// _SUCCESS files or the output paths of its writes.
var DefaultLimits = Limits{MaxEntries: 100_000, MaxSummaries: 1_000}

// SuccessFile is the name Hadoop's committers give the summary.
const SuccessFile = "_SUCCESS"

// ReadTree reads every _SUCCESS file in fsys (a directory the user copied
// the summaries into, keeping each output's path under it: the bucket and
// key of s3a://bucket/key, or a local output's path). Each summary's Dest
// is its directory's path in fsys. name says where fsys is, in errors.
// A file that is no summary is an error in errs; the others are read.
func ReadTree(fsys fs.FS, name string, lim Limits) (sums []*Summary, errs []error) {
	visited := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("s3a: %s: %w", path.Join(name, p), err))
			return nil
		}
		if visited++; visited > lim.MaxEntries {
			return fmt.Errorf("s3a: %s: more than %d entries: give the directory of this application's outputs", name, lim.MaxEntries)
		}
		if d.IsDir() || d.Name() != SuccessFile {
			return nil
		}
		if len(sums) >= lim.MaxSummaries {
			return fmt.Errorf("s3a: %s: more than %d summaries", name, lim.MaxSummaries)
		}
		s, err := readFS(fsys, p, path.Join(name, p))
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		s.Dest = path.Dir(p)
		sums = append(sums, s)
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return sums, errs
}

func readFS(fsys fs.FS, p, name string) (*Summary, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("s3a: %w", err)
	}
	defer f.Close()
	return Read(name, f)
}

// OpenObject opens an object of an object store; what reads s3:// paths
// (the S3 client) implements it.
type OpenObject func(ctx context.Context, bucket, key string) (io.ReadCloser, error)

// ErrNoStore is the error for an object-store output path with no store
// configured to read it from.
var ErrNoStore = errors.New("no object store configured (--s3-endpoint, AWS credentials)")

// ReadOutputs reads the _SUCCESS file of each output path: a local one
// (file:/x or /x) from the disk, an s3a://, s3:// or s3n:// one through
// open (ErrNoStore in errs when open is nil). An output without a
// _SUCCESS (the write failed, or its output was overwritten since) is
// skipped; at most lim.MaxSummaries paths are read. Each summary's Dest is
// its output path.
func ReadOutputs(ctx context.Context, paths []string, open OpenObject, lim Limits) (sums []*Summary, errs []error) {
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if len(seen) > lim.MaxSummaries {
			errs = append(errs, fmt.Errorf("s3a: more than %d output paths: the rest are not read", lim.MaxSummaries))
			break
		}
		s, err := readOutput(ctx, p, open)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			errs = append(errs, err)
		case s != nil:
			s.Dest = p
			sums = append(sums, s)
		}
	}
	return sums, errs
}

func readOutput(ctx context.Context, p string, open OpenObject) (*Summary, error) {
	scheme, rest, ok := strings.Cut(p, "://")
	if !ok {
		local, isFile := strings.CutPrefix(p, "file:")
		if !isFile && !strings.HasPrefix(p, "/") {
			return nil, nil // hdfs:… without a reader, or no path at all
		}
		name := path.Join(local, SuccessFile)
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("s3a: %w", err)
		}
		defer f.Close()
		return Read(name, f)
	}
	switch scheme {
	case "s3", "s3a", "s3n":
	case "file":
		return readOutput(ctx, "file:/"+strings.TrimLeft(rest, "/"), open)
	default:
		return nil, nil // gs://, abfss://: no reader here yet
	}
	name := strings.TrimSuffix(p, "/") + "/" + SuccessFile
	if open == nil {
		return nil, fmt.Errorf("s3a: %s: %w", name, ErrNoStore)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	key = strings.Trim(key, "/")
	if key != "" {
		key += "/"
	}
	r, err := open(ctx, bucket, key+SuccessFile)
	if err != nil {
		return nil, fmt.Errorf("s3a: %s: %w", name, err)
	}
	defer r.Close()
	return Read(name, r)
}

package s3a_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sparkdx/sparkdx/internal/s3a"
)

func TestReadTree(t *testing.T) {
	sums, errs := s3a.ReadTree(os.DirFS("testdata/spark-3.5.9"), "testdata/spark-3.5.9", s3a.DefaultLimits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, s := range sums {
		got = append(got, s.Dest+"="+s.Committer)
	}
	want := []string{"classic/few-files=file", "classic/many-files=file", "magic/few-files=magic", "magic/many-files=magic",
		"magic-json/few-files=magic", "magic-json/many-files=magic"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadTreeBadAndBounded(t *testing.T) {
	fsys := fstest.MapFS{
		"a/_SUCCESS":     {Data: []byte(`{"name":"org.apache.hadoop.fs.s3a.commit.files.SuccessData/1","committer":"magic"}`)},
		"b/_SUCCESS":     {Data: []byte(`{"name":`)},
		"b/part-0.json":  {Data: []byte(`{}`)},
		"c/d/_SUCCESS":   {Data: nil},
		"c/d/_SUCCESS.x": {Data: []byte(`x`)},
	}
	sums, errs := s3a.ReadTree(fsys, "copies", s3a.DefaultLimits)
	if len(sums) != 2 || sums[0].Dest != "a" || sums[1].Dest != "c/d" || !sums[1].Empty {
		t.Errorf("got %d summaries %+v, want a (magic) and c/d (empty)", len(sums), sums)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "copies/b/_SUCCESS: offset 8") {
		t.Errorf("errors %v, want one naming copies/b/_SUCCESS and its offset", errs)
	}
	_, errs = s3a.ReadTree(fsys, "copies", s3a.Limits{MaxEntries: 3, MaxSummaries: 10})
	if len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Error(), "more than 3 entries") {
		t.Errorf("errors %v, want the entry bound", errs)
	}
	_, errs = s3a.ReadTree(fsys, "copies", s3a.Limits{MaxEntries: 100, MaxSummaries: 1})
	if len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Error(), "more than 1 summaries") {
		t.Errorf("errors %v, want the summary bound", errs)
	}
}

func TestReadOutputs(t *testing.T) {
	abs, err := filepath.Abs("testdata/spark-3.5.9/magic")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	open := func(_ context.Context, bucket, key string) (io.ReadCloser, error) {
		asked = append(asked, bucket+"/"+key)
		if key == "gone/_SUCCESS" {
			return nil, os.ErrNotExist
		}
		return io.NopCloser(strings.NewReader("")), nil
	}
	paths := []string{"file:" + abs + "/many-files", abs + "/few-files", "file://" + abs + "/few-files/", abs + "/none",
		"s3a://bucket/out", "s3://bucket/gone", "hdfs://nn/out", "gs://b/out"}
	sums, errs := s3a.ReadOutputs(context.Background(), paths, open, s3a.DefaultLimits)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, s := range sums {
		got = append(got, s.Dest+"="+s.Committer)
	}
	want := []string{"file:" + abs + "/many-files=magic", abs + "/few-files=magic", "file://" + abs + "/few-files/=magic", "s3a://bucket/out=file"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if !slices.Equal(asked, []string{"bucket/out/_SUCCESS", "bucket/gone/_SUCCESS"}) {
		t.Errorf("asked the store for %q", asked)
	}
	_, errs = s3a.ReadOutputs(context.Background(), []string{"s3a://bucket/out"}, nil, s3a.DefaultLimits)
	if len(errs) != 1 || !errors.Is(errs[0], s3a.ErrNoStore) || !strings.Contains(errs[0].Error(), "s3a://bucket/out/_SUCCESS") {
		t.Errorf("without a store: %v, want ErrNoStore naming the summary", errs)
	}
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sparkdx/sparkdx/internal/azure"
	"github.com/sparkdx/sparkdx/internal/gcs"
	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
	"github.com/sparkdx/sparkdx/internal/s3"
)

// heapTopClasses is how many of a dump's largest classes its event carries.
const heapTopClasses = 10

// hprofType is the media type dumps are stored with.
const hprofType = "application/vnd.java.hprof"

const wantUpload = "want s3://bucket/prefix, abfss://container@account.dfs.core.windows.net/path, wasbs://container@account.blob.core.windows.net/path, az://container/path or gs://bucket/prefix"

// Stores are the object stores a heap dump can be copied to, one
// configuration each; only the one the upload URL names is used.
type Stores struct {
	S3    s3.Config
	Azure azure.Config
	GCS   gcs.Config
}

// dumpStore is where heap dumps are copied once written: put returns the
// URL of the object made from file, which appears whole or not at all.
type dumpStore interface {
	put(ctx context.Context, file string) (url string, err error)
}

// newDumpStore returns the store url names by its scheme: s3:// (s3a://,
// s3n://), abfss:// (abfs://, wasbs://, wasb://, az://) or gs://.
func newDumpStore(url string, st Stores) (dumpStore, error) {
	var (
		s   dumpStore
		err error
	)
	switch {
	case s3.IsURL(url):
		s, err = newS3Store(url, st.S3)
	case azure.IsURL(url):
		s, err = newAzureStore(url, st.Azure)
	case gcs.IsURL(url):
		s, err = newGCSStore(url, st.GCS)
	default:
		err = errors.New(wantUpload)
	}
	if err != nil {
		return nil, fmt.Errorf("heap dump upload %s: %w", url, err)
	}
	return s, nil
}

// withDump opens a dump for a store that reads it at offsets (blocks,
// chunks) and gives it the dump's size.
func withDump(file string, put func(r io.ReaderAt, size int64) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return put(f, st.Size())
}

// validUploadURL checks an upload URL's form without making a client.
func validUploadURL(url string) error {
	var err error
	switch {
	case s3.IsURL(url):
		_, _, err = s3.Split(url)
	case azure.IsURL(url):
		_, err = azure.Parse(url)
	case gcs.IsURL(url):
		_, _, err = gcs.Split(url)
	default:
		err = errors.New(wantUpload)
	}
	return err
}

// summarize reads the dump just written into ev.HeapDump — its class
// histogram, at histogram speed — and puts its largest classes and the
// Spark notes on the event; then uploads it when an upload is set. A
// failure of either is said in the event's detail: the dump stays on the
// node.
func (h *heapDumper) summarize(ctx context.Context, ev *Event) {
	hist, err := hprof.ReadFile(ctx, ev.HeapDump, hprof.Options{MaxStrings: -1})
	if err != nil {
		ev.Detail = join(ev.Detail, fmt.Sprintf("histogram: %v", err))
	} else {
		ev.HeapTop = hist.Classes[:min(heapTopClasses, len(hist.Classes))]
		ev.HeapNotes = hprof.SparkNotes(hist.Classes)
	}
	if h.upload == nil {
		return
	}
	url, err := h.upload.put(ctx, ev.HeapDump)
	if err != nil {
		ev.Detail = join(ev.Detail, err.Error())
		return
	}
	ev.HeapDumpURL = url
}

package replay

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// replaySequential decodes and applies one line at a time, with no
// pipeline, no chunk reuse and a fresh allocation per event: the reference
// the pipeline must reproduce exactly.
func replaySequential(t *testing.T, data []byte) *model.Attempt {
	t.Helper()
	a := model.NewAttempt()
	st := newState(a)
	d := sparkevent.NewDecoder()
	for _, ln := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		ev, err := d.DecodeLine(ln)
		if err != nil {
			t.Fatalf("sequential decode: %v", err)
		}
		if _, unknown := ev.(sparkevent.Unknown); !unknown {
			st.apply(redactEvent(redact.Default(), ev))
		}
	}
	st.finish()
	return a
}

// TestPipelineMatchesSequential: the parallel pipeline, which reuses chunk
// buffers and task events once applied, must build the same model as
// decoding and applying line by line, for any chunk size (small chunks
// recycle every chunk and its events many times over).
func TestPipelineMatchesSequential(t *testing.T) {
	logs := map[string][]byte{"big": bigLog(t)}
	small, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	logs["local-1430917381534"] = small
	for name, data := range logs {
		want := replaySequential(t, data)
		for _, o := range []Options{{}, {Workers: 2, ChunkSize: 4096}, {Workers: 3, ChunkSize: 200}} {
			if name == "big" && o.ChunkSize == 200 {
				continue // 200k chunks: slow and adds nothing over 4096
			}
			t.Run(fmt.Sprintf("%s/workers=%d/chunk=%d", name, o.Workers, o.ChunkSize), func(t *testing.T) {
				got, st, err := Read(context.Background(), bytes.NewReader(data), o)
				if err != nil {
					t.Fatal(err)
				}
				if st.Bytes != int64(len(data)) {
					t.Errorf("got %d bytes, want %d", st.Bytes, len(data))
				}
				if !reflect.DeepEqual(got, want) {
					t.Error("got a model that differs from the sequential replay's, want the same")
				}
			})
		}
	}
}

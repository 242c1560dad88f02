package replay_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// FuzzTail feeds any bytes to a Tail in two pieces cut anywhere: it never
// panics, and counts the same lines, events and bad lines as one Read.
func FuzzTail(f *testing.F) {
	for _, name := range []string{"local-1430917381534", "local-1422981780767"} {
		if data, err := os.ReadFile(sparktest.Path(f, "spark-events", name)); err == nil {
			f.Add(data[:min(len(data), 8000)], uint16(1234))
		}
	}
	f.Add([]byte("{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"a\"}\n{\"Event\":"), uint16(10))
	f.Add([]byte("not json\n\n{}\n"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		c := int(cut) % (len(data) + 1)
		tl := replay.NewTail(replay.Options{Name: "fuzz"})
		for _, piece := range [][]byte{data[:c], data[c:]} {
			if err := tl.Apply(tl.Decode(bytes.Clone(piece))); err != nil {
				t.Fatal(err)
			}
		}
		if err := tl.Apply(tl.End()); err != nil {
			t.Fatal(err)
		}
		_, want, err := replay.Read(context.Background(), bytes.NewReader(data),
			replay.Options{Name: "fuzz", InProgress: true, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := tl.Stats()
		if got.Events != want.Events || got.BadLines != want.BadLines || got.Lines != want.Lines || got.Truncated != want.Truncated {
			t.Errorf("tail: events %d bad %d lines %d truncated %v; replay: %d %d %d %v",
				got.Events, got.BadLines, got.Lines, got.Truncated, want.Events, want.BadLines, want.Lines, want.Truncated)
		}
	})
}

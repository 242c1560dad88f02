package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"github.com/sparkdx/sparkdx/internal/sparkevent"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// FuzzApply: no line may panic the replay of the event it decodes to. It
// starts from the lines sparkevent's FuzzDecodeLine starts from.
func FuzzApply(f *testing.F) {
	for _, ln := range sparktest.SeedLines(f) {
		f.Add(ln)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d := sparkevent.NewDecoder()
		ev, err := d.DecodeLine(line)
		if err != nil {
			return
		}
		st := newState(newTestAttempt())
		st.apply(ev)
		st.apply(ev) // twice: duplicate events must not panic either
	})
}

// FuzzReplay: no multi-line input may panic the pipeline or the replay,
// whatever the chunk boundaries.
func FuzzReplay(f *testing.F) {
	data, err := os.ReadFile(sparktest.Path(f, "spark-events", "local-1426533911241"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:4096], uint16(64))
	f.Add([]byte(appStart+"{\n\n{\"Event\":\"SparkListenerTaskEnd\"}\r\n"), uint16(7))
	f.Fuzz(func(t *testing.T, log []byte, chunk uint16) {
		for _, strict := range []bool{false, true} {
			_, st, err := Read(context.Background(), bytes.NewReader(log),
				Options{Strict: strict, ChunkSize: int(chunk%4096) + 1, Workers: 2})
			if err == nil && st.Bytes != int64(len(log)) {
				t.Fatalf("got %d bytes replayed, want %d", st.Bytes, len(log))
			}
		}
		// The line bound: with a small maximum, a replay either fails with
		// ErrLineTooLong exactly when some line is longer, or reads it all.
		const maxLine = 256
		_, _, err := Read(context.Background(), bytes.NewReader(log),
			Options{ChunkSize: int(chunk%4096) + 1, Workers: 2, MaxLine: maxLine})
		longest := 0
		for _, l := range bytes.Split(log, []byte{'\n'}) {
			longest = max(longest, len(l))
		}
		if got := errors.Is(err, ErrLineTooLong); got && longest <= maxLine {
			t.Fatalf("ErrLineTooLong with the longest line %d bytes (max %d): %v", longest, maxLine, err)
		}
		if longest > maxLine+int(chunk%4096)+1+maxLine && !errors.Is(err, ErrLineTooLong) {
			// A line well past the bound must be refused (a read may end a little past it).
			t.Fatalf("a %d-byte line (max %d) was not refused: %v", longest, maxLine, err)
		}
	})
}

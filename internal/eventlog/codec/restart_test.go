package codec

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// restartPoints decodes data with reads of random sizes and returns the
// decoded bytes, the error that ended them and every distinct restart point
// reported, checking that each lies at or before the bytes returned.
func restartPoints(t *testing.T, c Codec, data []byte, rng *rand.Rand) ([]byte, error, []Restart) {
	t.Helper()
	r, err := Resume(c, bytes.NewReader(data), Restart{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	points := []Restart{{}}
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf[:1+rng.IntN(len(buf))])
		out.Write(buf[:n])
		got := r.Restart()
		last := points[len(points)-1]
		switch {
		case got.Decoded > int64(out.Len()) || got.Comp > int64(len(data)):
			t.Fatalf("restart point %+v past the %d bytes returned (%d stored)", got, out.Len(), len(data))
		case got.Comp < last.Comp || got.Decoded < last.Decoded:
			t.Fatalf("restart point %+v before the earlier %+v", got, last)
		case got != last:
			points = append(points, got)
		}
		if err == io.EOF {
			return out.Bytes(), nil, points
		}
		if err != nil {
			return out.Bytes(), err, points
		}
	}
}

// TestRestartRealFiles resumes every real compressed file at every restart
// point a reader reported: what follows must be exactly the rest of one
// full decode, and errors keep naming offsets of the whole stream.
func TestRestartRealFiles(t *testing.T) {
	files := compressedFiles(t)
	files = append(files, sparktest.Path(t, "big", "application_1701368813061_0008.zstd"))
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			c := FromName(name)
			data := readFile(t, path)
			full, fullErr := decodeAll(t, c, data)
			rng := rand.New(rand.NewPCG(uint64(len(data)), 1))
			got, err, points := restartPoints(t, c, data, rng)
			if !bytes.Equal(got, full) || (err == nil) != (fullErr == nil) {
				t.Fatalf("got %d bytes, %v; want the %d bytes, %v of a plain decode", len(got), err, len(full), fullErr)
			}
			t.Logf("%d restart points over %d bytes, %d decoded", len(points), len(data), len(full))
			if name == "application_1701368813061_0008.zstd" {
				// One frame, written by the command-line tool: the start and the end only.
				if len(points) != 2 || points[1] != (Restart{int64(len(data)), int64(len(full))}) {
					t.Errorf("got restart points %v, want the start and the end", points)
				}
			} else if len(points) < 3 {
				t.Errorf("got %d restart points, want several (one per block or frame)", len(points))
			}
			for _, at := range points {
				r, err := Resume(c, bytes.NewReader(data[at.Comp:]), at)
				if err != nil {
					t.Fatal(err)
				}
				var rest bytes.Buffer
				_, err = io.Copy(&rest, r)
				r.Close()
				if !bytes.Equal(rest.Bytes(), full[at.Decoded:]) {
					t.Fatalf("resumed at %+v: got %d bytes, want the %d after it", at, rest.Len(), len(full)-int(at.Decoded))
				}
				if !sameError(err, fullErr) {
					t.Fatalf("resumed at %+v: got error %v, want %v", at, err, fullErr)
				}
			}
		})
	}
}

// sameError reports whether two decoding errors are the same problem at
// the same offset (both nil counts).
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	var ea, eb *Error
	return errors.As(a, &ea) && errors.As(b, &eb) && ea.Offset == eb.Offset && a.Error() == b.Error()
}

// TestRestartSynthetic covers the stream kinds the real files lack:
// concatenated lz4 and snappy-java streams, gzip members, zstd skippable
// frames, and the snappy framing format (no restart point past its start).
func TestRestartSynthetic(t *testing.T) {
	plain := readFile(t, sparktest.Path(t, "spark-events", "local-1430917381534"))
	half := len(plain) / 2
	a, b := plain[:half], plain[half:]
	zstdFile := readFile(t, sparktest.Path(t, "compressed", "local-1430917381534.zstd"))
	skippable := []byte{0x5e, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}
	tests := []struct {
		name      string
		c         Codec
		data      []byte
		minPoints int
	}{
		{"lz4 two streams", LZ4, append(encodeLZ4Block(a, 4<<10), encodeLZ4Block(b, 4<<10)...), 8},
		{"snappy-java two streams", Snappy, append(encodeSnappyJava(a, 4<<10), encodeSnappyJava(b, 4<<10)...), 8},
		{"gzip members", Gzip, append(gzipBytes(t, a), gzipBytes(t, b)...), 3},
		{"zstd skippable frames", ZSTD, append(append(bytes.Clone(skippable), zstdFile...), skippable...), 3},
		{"snappy framing format", Snappy, encodeSnappyFramed(t, plain), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err, points := restartPoints(t, tt.c, tt.data, rand.New(rand.NewPCG(7, 7)))
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("got %d bytes, %v; want the %d plain bytes", len(got), err, len(plain))
			}
			if len(points) < tt.minPoints || tt.minPoints == 1 && len(points) != 1 {
				t.Errorf("got %d restart points, want at least %d (exactly 1 when 1)", len(points), tt.minPoints)
			}
			for _, at := range points {
				r, err := Resume(tt.c, bytes.NewReader(tt.data[at.Comp:]), at)
				if err != nil {
					t.Fatal(err)
				}
				rest, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(rest, plain[at.Decoded:]) {
					t.Fatalf("resumed at %+v: got %d bytes, %v; want the %d after it", at, len(rest), err, len(plain)-int(at.Decoded))
				}
			}
		})
	}
}

// TestRestartCut resumes prefixes of real files (a log being written): a
// reader of the prefix delivers complete blocks and reports where to go on;
// resuming there on the whole file gives exactly the rest.
func TestRestartCut(t *testing.T) {
	for _, c := range []Codec{LZ4, Snappy, LZF, ZSTD} {
		path := sparktest.Path(t, "compressed", "local-1642039451826."+string(c))
		data := readFile(t, path)
		full := readFile(t, sparktest.Path(t, "spark-events", "local-1642039451826"))
		t.Run(string(c), func(t *testing.T) {
			for cutAt := 0; cutAt < len(data); cutAt += 997 {
				r, err := Resume(c, bytes.NewReader(data[:cutAt]), Restart{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				at := r.Restart()
				r.Close()
				if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("cut at %d: got error %v, want none or io.ErrUnexpectedEOF", cutAt, err)
				}
				if !bytes.HasPrefix(full, got) || at.Decoded > int64(len(got)) || at.Comp > int64(cutAt) {
					t.Fatalf("cut at %d: got %d bytes (a prefix: %v), restart %+v", cutAt, len(got), bytes.HasPrefix(full, got), at)
				}
				r, _ = Resume(c, bytes.NewReader(data[at.Comp:]), at)
				rest, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(rest, full[at.Decoded:]) {
					t.Fatalf("cut at %d, resumed at %+v: got %d bytes, %v; want the %d after it", cutAt, at, len(rest), err, len(full)-int(at.Decoded))
				}
			}
		})
	}
}

// TestResumeBadPoint starts readers at offsets no reader reported: the
// result is an error naming an offset at or past the start, never a panic
// or silent garbage accepted as a clean end.
func TestResumeBadPoint(t *testing.T) {
	for _, c := range []Codec{LZ4, Snappy, LZF, ZSTD} {
		data := readFile(t, sparktest.Path(t, "compressed", "local-1642039451826."+string(c)))
		t.Run(string(c), func(t *testing.T) {
			at := Restart{Comp: 1001, Decoded: 5}
			r, err := Resume(c, bytes.NewReader(data[at.Comp:]), at)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.ReadAll(r)
			var e *Error
			if !errors.As(err, &e) || e.Offset < at.Comp || !strings.HasPrefix(err.Error(), string(c)+": offset ") {
				t.Errorf("got error %v, want a %s error at offset >= %d", err, c, at.Comp)
			}
		})
	}
	if _, err := Resume(LZ4, bytes.NewReader(nil), Restart{Comp: -1}); err == nil {
		t.Error("negative restart point: got no error")
	}
}

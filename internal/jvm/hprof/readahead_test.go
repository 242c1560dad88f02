package hprof

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// TestAheadDecoder reads a source through the read-ahead chunks with
// reads of every size up to the prefix, so that reads run past chunk ends
// (chunks smaller and larger than the reads); the bytes and offsets are
// the source's, and the end is errShort inside a read, EOF between.
func TestAheadDecoder(t *testing.T) {
	data := make([]byte, 200_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, tt := range []struct {
		name          string
		prefix, chunk int
		src           func() io.Reader
	}{
		{"chunks larger than reads", 100, 4096, func() io.Reader { return bytes.NewReader(data) }},
		{"reads larger than chunks", 5000, 333, func() io.Reader { return bytes.NewReader(data) }},
		{"one byte a source read", 64, 17, func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tt.prefix)))
			ra := newReadAhead(tt.src(), tt.prefix, tt.chunk)
			defer ra.close()
			d := newAheadDecoder(context.Background(), ra)
			off := 0
		read:
			for {
				eof, err := d.atEOF()
				if err != nil {
					t.Fatal(err)
				}
				if eof {
					break
				}
				if got := d.offset(); got != int64(off) {
					t.Fatalf("offset %d, want %d", got, off)
				}
				n := 1 + rng.IntN(tt.prefix)
				b, err := d.next(n)
				if off+n > len(data) {
					if !errors.Is(err, errShort) {
						t.Fatalf("read of %d at %d past the end of %d: error %v, want errShort", n, off, len(data), err)
					}
					off = len(data)
					break
				}
				if err != nil {
					t.Fatalf("read of %d at %d: %v", n, off, err)
				}
				if !bytes.Equal(b, data[off:off+n]) {
					t.Fatalf("read of %d at %d: other bytes than the source's", n, off)
				}
				off += n
				if rng.IntN(3) == 0 { // a skip across chunks
					k := rng.IntN(3 * tt.chunk)
					if err := d.skip(int64(k)); err != nil {
						if off+k > len(data) && errors.Is(err, errShort) {
							off = len(data)
							break read
						}
						t.Fatalf("skip %d at %d: %v", k, off, err)
					}
					off += k
				}
			}
			if off != len(data) {
				t.Fatalf("stopped at %d of %d", off, len(data))
			}
		})
	}
}

func TestAheadDecoderError(t *testing.T) {
	boom := errors.New("boom")
	ra := newReadAhead(io.MultiReader(bytes.NewReader(make([]byte, 100)), iotest.ErrReader(boom)), 64, 30)
	defer ra.close()
	d := newAheadDecoder(context.Background(), ra)
	if _, err := d.next(60); err != nil {
		t.Fatal(err)
	}
	if _, err := d.next(50); !errors.Is(err, boom) {
		t.Errorf("read past the source's error: %v, want %v", err, boom)
	}
}

func TestAheadDecoderCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ra := newReadAhead(bytes.NewReader(make([]byte, 1000)), 64, 100)
	defer ra.close()
	d := newAheadDecoder(ctx, ra)
	if _, err := d.next(60); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := d.next(60); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want %v", err, context.Canceled)
	}
}

func TestReadAheadCloseEarly(t *testing.T) {
	r := newReadAhead(bytes.NewReader(make([]byte, 10*readAheadChunk)), 16, readAheadChunk)
	d := newAheadDecoder(context.Background(), r)
	if _, err := d.next(10); err != nil {
		t.Fatal(err)
	}
	r.close() // the reader goroutine blocks on a full queue: close must stop it
}

package hprof

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestReadAhead(t *testing.T) {
	data := make([]byte, 3*readAheadChunk+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	tests := []struct {
		name string
		want []byte
		src  func() io.Reader
	}{
		{"whole", data, func() io.Reader { return bytes.NewReader(data) }},
		{"one byte a read", data[:70000], func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data[:70000])) }},
		{"empty", nil, func() io.Reader { return bytes.NewReader(nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReadAhead(tt.src())
			defer r.close()
			got, err := io.ReadAll(iotest.HalfReader(r))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("got %d bytes, want the source's %d", len(got), len(tt.want))
			}
		})
	}
}

func TestReadAheadError(t *testing.T) {
	boom := errors.New("boom")
	r := newReadAhead(io.MultiReader(bytes.NewReader(make([]byte, 100)), iotest.ErrReader(boom)))
	defer r.close()
	got, err := io.ReadAll(r)
	if !errors.Is(err, boom) || len(got) != 100 {
		t.Errorf("got %d bytes and error %v, want 100 and %v", len(got), err, boom)
	}
}

func TestReadAheadCloseEarly(t *testing.T) {
	r := newReadAhead(bytes.NewReader(make([]byte, 10*readAheadChunk)))
	if _, err := io.ReadFull(r, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	r.close() // the reader goroutine blocks on a full queue: close must stop it
}

package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestCorruptLZ4 damages the second block of a real LZ4Block file in
// different ways: the first block must be delivered, then an error naming
// the second block's offset and what is wrong.
func TestCorruptLZ4(t *testing.T) {
	data := readFile(t, sparktest.Path(t, "compressed", "local-1642039451826.lz4"))
	plain := readFile(t, sparktest.Path(t, "spark-events", "local-1642039451826"))
	first := lz4HeaderLen + int(binary.LittleEndian.Uint32(data[9:]))
	firstLen := int(binary.LittleEndian.Uint32(data[13:]))
	tests := []struct {
		name   string
		damage func(b []byte)
		want   string
	}{
		{"checksum", func(b []byte) { b[first+17] ^= 0x01 }, "block checksum"},
		{"magic", func(b []byte) { copy(b[first:], "LZ4Blokk") }, `block magic "LZ4Blokk", want "LZ4Block"`},
		{"method", func(b []byte) { b[first+8] = 0x35 }, "block method 0x30"},
		{"decoded length", func(b []byte) { binary.LittleEndian.PutUint32(b[first+13:], 1<<30) }, "out of range"},
		{"payload", func(b []byte) { b[first+lz4HeaderLen+100] ^= 0x55 }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(data)
			tt.damage(b)
			got, err := decodeAll(t, LZ4, b)
			if err == nil {
				t.Fatal("got no error")
			}
			if len(got) != firstLen || !bytes.HasPrefix(plain, got) {
				t.Errorf("got %d bytes before the error, want the first block's %d", len(got), firstLen)
			}
			var e *Error
			if !errors.As(err, &e) || e.Offset != int64(first) {
				t.Errorf("error %v: want offset %d", err, first)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("lz4: offset %d: ", first)) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestCorruptSnappyAndLZF(t *testing.T) {
	tests := []struct {
		codec  Codec
		damage func(b []byte)
		want   string
	}{
		{Snappy, func(b []byte) { b[0] = 'X' }, "stream magic"},
		{Snappy, func(b []byte) { b[16] = 0xff }, "chunk length"},
		{LZF, func(b []byte) { b[1] = 'W' }, `chunk signature "ZW"`},
		{LZF, func(b []byte) { b[2] = 7 }, "chunk type 7"},
	}
	for _, tt := range tests {
		t.Run(string(tt.codec)+"/"+tt.want, func(t *testing.T) {
			b := bytes.Clone(readFile(t, sparktest.Path(t, "compressed", "local-1430917381534."+string(tt.codec))))
			tt.damage(b)
			_, err := decodeAll(t, tt.codec, b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestLZFDecompress(t *testing.T) {
	tests := []struct {
		name    string
		src     []byte
		n       int
		want    string
		wantErr string
	}{
		{"literal", []byte{2, 'a', 'b', 'c'}, 3, "abc", ""},
		{"overlapping back-reference", []byte{0, 'a', 0x20, 0}, 4, "aaaa", ""},
		{"long back-reference", []byte{1, 'a', 'b', 0xe0, 3, 1}, 14, "ababababababab", ""},
		{"literal past end of chunk", []byte{5, 'a'}, 6, "", "passes end of chunk"},
		{"reference before start", []byte{0, 'a', 0x20, 5}, 4, "", "before the start"},
		{"output overrun", []byte{2, 'a', 'b', 'c'}, 2, "", "passes decoded length"},
		{"short output", []byte{2, 'a', 'b', 'c'}, 4, "", "decodes to 3 bytes, header says 4"},
		{"cut reference", []byte{0, 'a', 0xe0}, 4, "", "cut short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, tt.n)
			err := lzfDecompress(tt.src, dst)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(dst) != tt.want {
				t.Errorf("got %q, %v; want %q", dst, err, tt.want)
			}
		})
	}
}

func TestXXH32(t *testing.T) {
	// Vectors from the xxHash reference implementation and its Python binding.
	tests := []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0x02cc5d05},
		{"a", 0, 0x550d7456},
		{"abc", 0, 0x32d153ff},
		{"Nobody inspects the spammish repetition", 0, 0xe2293b2f},
	}
	for _, tt := range tests {
		if got := xxh32([]byte(tt.in), tt.seed); got != tt.want {
			t.Errorf("xxh32(%q, %#x) = %#08x, want %#08x", tt.in, tt.seed, got, tt.want)
		}
	}
}

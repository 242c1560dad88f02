package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestFromName(t *testing.T) {
	tests := []struct {
		name string
		want Codec
	}{
		{"local-1430917381534", None},
		{"local-1430917381534.lz4", LZ4},
		{"/logs/app-20200706201101-0003.lzf", LZF},
		{"application_1553914137147_0018.snappy", Snappy},
		{"application_1553914137147_0018.zstd", ZSTD},
		{"events_1_app.zst", ZSTD},
		{"eventlog-2023-01-01--10-00.gz", Gzip},
		{"eventlog", None},
		{"local-1642039451826.lz4.inprogress", LZ4},
		{"local-1642039451826.inprogress", None},
		{"events_3_app-1.zstd.compact", ZSTD},
		{"events_3_app-1.compact", None},
		{"s3://bucket/dir/app-1.snappy", Snappy},
		{"app-1.LZ4", LZ4},
		{"README.md", None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromName(tt.name); got != tt.want {
				t.Errorf("FromName(%q) = %s, want %s", tt.name, got, tt.want)
			}
		})
	}
}

func TestSniffRealFiles(t *testing.T) {
	for _, path := range compressedFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			head := readFile(t, path)[:SniffLen]
			if got, want := Sniff(head), FromName(path); got != want {
				t.Errorf("Sniff = %s, want %s", got, want)
			}
		})
	}
	plain := readFile(t, sparktest.Path(t, "spark-events", "local-1430917381534"))
	if got := Sniff(plain[:SniffLen]); got != None {
		t.Errorf("Sniff(plain log) = %s, want none", got)
	}
}

func TestSniffMagics(t *testing.T) {
	tests := []struct {
		head string
		want Codec
	}{
		{"LZ4Block\x25", LZ4},
		{"\x82SNAPPY\x00\x00", Snappy},
		{"\xff\x06\x00\x00sNaPpY", Snappy},
		{"ZV\x00\x10", LZF},
		{"ZV\x01\x10", LZF},
		{"ZV\x02\x10", None},
		{"\x28\xb5\x2f\xfd\x00", ZSTD},
		{"\x50\x2a\x4d\x18\x00", ZSTD},
		{"\x1f\x8b\x08", Gzip},
		{`{"Event":"`, None},
		{"LZ4", None},
		{"", None},
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.head)); got != tt.want {
			t.Errorf("Sniff(%q) = %s, want %s", tt.head, got, tt.want)
		}
	}
}

// TestRealLogs decodes every file of the shared compressed set and checks it
// against the plain log it was written from.
func TestRealLogs(t *testing.T) {
	for _, path := range compressedFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			got, err := decodeAll(t, FromName(name), readFile(t, path))
			full := readFile(t, sparktest.Path(t, "spark-events", appName(name)))
			switch {
			case name == "local-1642039451826.zstd.inprogress":
				// All frames complete; the generator's println ended the cut line.
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				want := append(readFile(t, sparktest.Path(t, "compressed", "local-1642039451826.inprogress")), '\n')
				if !bytes.Equal(got, want) {
					t.Errorf("got %d bytes, want the %d bytes of the plain in-progress log", len(got), len(want))
				}
			case strings.HasSuffix(name, ".inprogress"):
				if !isUnexpectedEOF(err) {
					t.Fatalf("got error %v, want io.ErrUnexpectedEOF", err)
				}
				if len(got) == 0 || !bytes.HasPrefix(full, got) {
					t.Errorf("got %d bytes, want a non-empty prefix of the %d-byte plain log", len(got), len(full))
				}
			default:
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				if !bytes.Equal(got, full) {
					t.Errorf("got %d bytes, want the %d bytes of %s", len(got), len(full), appName(name))
				}
			}
		})
	}
}

// lz4CompleteBlocks walks the block headers of a (possibly cut) LZ4Block
// stream and returns the decoded size of the blocks wholly present.
func lz4CompleteBlocks(data []byte) int {
	total := 0
	for len(data) >= lz4HeaderLen {
		stored := int(binary.LittleEndian.Uint32(data[9:]))
		if len(data) < lz4HeaderLen+stored {
			break
		}
		total += int(binary.LittleEndian.Uint32(data[13:]))
		data = data[lz4HeaderLen+stored:]
	}
	return total
}

// TestCutStreamsDeliverCompleteBlocks checks that a stream cut inside a
// block delivers every byte of every block before the cut.
func TestCutStreamsDeliverCompleteBlocks(t *testing.T) {
	data := readFile(t, sparktest.Path(t, "compressed", "local-1642039451826.lz4.inprogress"))
	got, err := decodeAll(t, LZ4, data)
	if !isUnexpectedEOF(err) {
		t.Fatalf("got error %v, want io.ErrUnexpectedEOF", err)
	}
	if want := lz4CompleteBlocks(data); len(got) != want {
		t.Errorf("lz4: got %d bytes, want %d (the complete blocks)", len(got), want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Offset <= 0 || e.Offset >= int64(len(data)) {
		t.Errorf("lz4: error %v should name an offset inside the %d-byte file", err, len(data))
	}

	zstd := sparktest.Program(t, "zstd")
	path := sparktest.Path(t, "compressed", "local-1642039451826-cut.zstd.inprogress")
	cli, _ := exec.Command(zstd, "-dc", path).Output() // exits 1 on the cut frame
	got, err = decodeAll(t, ZSTD, readFile(t, path))
	if !isUnexpectedEOF(err) {
		t.Fatalf("zstd: got error %v, want io.ErrUnexpectedEOF", err)
	}
	if len(cli) == 0 || !bytes.Equal(got, cli) {
		t.Errorf("zstd: got %d bytes, want the %d bytes zstd -dc delivers", len(got), len(cli))
	}
}

// TestCutEverywhere cuts each codec's stream at every 97th byte: the output
// must be a prefix of the log, and any cut short of the end an
// io.ErrUnexpectedEOF or (for codecs without an end marker) a clean end at
// a block boundary.
func TestCutEverywhere(t *testing.T) {
	full := readFile(t, sparktest.Path(t, "spark-events", "local-1430917381534"))
	for _, c := range []Codec{LZ4, Snappy, LZF, ZSTD} {
		t.Run(string(c), func(t *testing.T) {
			data := readFile(t, sparktest.Path(t, "compressed", "local-1430917381534."+string(c)))
			for cut := 1; cut < len(data); cut += 97 {
				got, err := decodeAll(t, c, data[:cut])
				if err != nil && !isUnexpectedEOF(err) {
					t.Fatalf("cut at %d: got error %v, want io.ErrUnexpectedEOF", cut, err)
				}
				if !bytes.HasPrefix(full, got) {
					t.Fatalf("cut at %d: %d bytes are not a prefix of the log", cut, len(got))
				}
				if err == nil && c == LZ4 {
					t.Fatalf("cut at %d: lz4 without its end block ended cleanly", cut)
				}
			}
		})
	}
}

func TestBigZstdMatchesCLI(t *testing.T) {
	zstd := sparktest.Program(t, "zstd")
	path := sparktest.Path(t, "big", "application_1701368813061_0008.zstd")
	want, err := exec.Command(zstd, "-dc", path).Output()
	if err != nil {
		t.Fatalf("zstd -dc: %v", err)
	}
	got, err := decodeAll(t, ZSTD, readFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got %d bytes, want the %d bytes of zstd -dc", len(got), len(want))
	}
}

func TestEmptyStream(t *testing.T) {
	for _, c := range All {
		got, err := decodeAll(t, c, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("%s: got %d bytes, error %v; want 0 bytes, no error", c, len(got), err)
		}
	}
}

func TestConcatenatedStreams(t *testing.T) {
	plain := readFile(t, sparktest.Path(t, "spark-events", "local-1430917381534"))
	want := append(append([]byte{}, plain...), plain...)
	for _, c := range []Codec{LZ4, Snappy, LZF, ZSTD} {
		t.Run(string(c), func(t *testing.T) {
			one := readFile(t, sparktest.Path(t, "compressed", "local-1430917381534."+string(c)))
			got, err := decodeAll(t, c, append(append([]byte{}, one...), one...))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got %d bytes, want %d (the log twice)", len(got), len(want))
			}
		})
	}
}

// TestWrongCodec reads each real file with every other codec: always an
// error, never the log.
func TestWrongCodec(t *testing.T) {
	for _, actual := range []Codec{LZ4, Snappy, LZF, ZSTD} {
		data := readFile(t, sparktest.Path(t, "compressed", "app-20200706201101-0003."+string(actual)))
		for _, as := range []Codec{LZ4, Snappy, LZF, ZSTD, Gzip} {
			if as == actual {
				continue
			}
			t.Run(string(actual)+"_as_"+string(as), func(t *testing.T) {
				got, err := decodeAll(t, as, data)
				if err == nil {
					t.Fatalf("got %d bytes and no error, want an error", len(got))
				}
				if len(got) != 0 {
					t.Errorf("got %d bytes before the error, want none", len(got))
				}
				var e *Error
				if !errors.As(err, &e) || e.Codec != as {
					t.Errorf("error %v is not a %s *Error", err, as)
				}
			})
		}
	}
}

func TestGzipMultiMember(t *testing.T) {
	plain := readFile(t, sparktest.Path(t, "spark-events", "local-1430917381534"))
	half := len(plain) / 2
	stream := append(gzipBytes(t, plain[:half]), gzipBytes(t, plain[half:])...)
	got, err := decodeAll(t, Gzip, stream)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("got %d bytes, error %v; want the %d-byte log", len(got), err, len(plain))
	}
	got, err = decodeAll(t, Gzip, stream[:len(stream)-100])
	if !isUnexpectedEOF(err) || !bytes.HasPrefix(plain, got) || len(got) < half {
		t.Errorf("cut: got %d bytes, error %v; want at least the first member (%d) and io.ErrUnexpectedEOF", len(got), err, half)
	}
}

func TestSnappyFramingFormat(t *testing.T) {
	plain := readFile(t, sparktest.Path(t, "spark-events", "local-1430917381534"))
	framed := encodeSnappyFramed(t, plain)
	got, err := decodeAll(t, Snappy, framed)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("got %d bytes, error %v; want the %d-byte log", len(got), err, len(plain))
	}
	bad := bytes.Clone(framed)
	bad[len(magicSnappyFramed)+4] ^= 0xff // first chunk's checksum
	if _, err := decodeAll(t, Snappy, bad); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("corrupt checksum: got error %v, want a checksum error", err)
	}
	got, err = decodeAll(t, Snappy, framed[:len(framed)-10])
	if !isUnexpectedEOF(err) || !bytes.HasPrefix(plain, got) {
		t.Errorf("cut: got %d bytes, error %v; want a prefix and io.ErrUnexpectedEOF", len(got), err)
	}
}

package eventlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// readLog opens path, wants exactly one Log and returns it with its decoded
// bytes and the reader (after io.EOF or the error).
func readLog(t testing.TB, path string, opts OpenOptions) (*Log, []byte, *Reader, error) {
	t.Helper()
	logs, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	if len(logs) != 1 {
		t.Fatalf("Open(%s): got %d logs, want 1", path, len(logs))
	}
	data, r, err := readAll(t, logs[0])
	return logs[0], data, r, err
}

func readAll(t testing.TB, l *Log) ([]byte, *Reader, error) {
	t.Helper()
	r, err := l.NewReader(context.Background())
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var b bytes.Buffer
	_, err = io.Copy(&b, r)
	return b.Bytes(), r, err
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpenPlainFile(t *testing.T) {
	path := sparktest.Path(t, "spark-events", "local-1430917381534")
	l, got, r, err := readLog(t, path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	want := Log{Path: path, Name: "local-1430917381534", Codec: codec.None, Size: fi.Size(), ModTime: fi.ModTime()}
	if l.Path != want.Path || l.Name != want.Name || l.Codec != want.Codec || l.Size != want.Size ||
		!l.ModTime.Equal(want.ModTime) || l.InProgress || l.Rolling || len(l.Parts) != 1 {
		t.Errorf("got %+v, want %+v with one part", *l, want)
	}
	if !bytes.Equal(got, readFile(t, path)) {
		t.Errorf("got %d bytes, want the file's %d", len(got), fi.Size())
	}
	if r.Truncated() || r.Cut() != nil || r.Err() != nil {
		t.Errorf("Truncated %v, Cut %v, Err %v; want false, nil, nil", r.Truncated(), r.Cut(), r.Err())
	}
	if r.StoredBytes() != fi.Size() || r.DecodedBytes() != fi.Size() {
		t.Errorf("StoredBytes %d, DecodedBytes %d; want %d", r.StoredBytes(), r.DecodedBytes(), fi.Size())
	}
}

// TestOpenCompressedFiles reads every shared compressed file through Open:
// finished logs decode to their plain log; in-progress ones end without an
// error and say whether and where they are cut.
func TestOpenCompressedFiles(t *testing.T) {
	dir := sparktest.Path(t, "compressed")
	tests := []struct {
		name      string
		truncated bool
		cut       bool // inside a compressed block or frame
	}{
		{"app-20200706201101-0003.lz4", false, false},
		{"app-20200706201101-0003.lzf", false, false},
		{"app-20200706201101-0003.snappy", false, false},
		{"app-20200706201101-0003.zstd", false, false},
		{"application_1553914137147_0018.lz4", false, false},
		{"application_1553914137147_0018.lzf", false, false},
		{"application_1553914137147_0018.snappy", false, false},
		{"application_1553914137147_0018.zstd", false, false},
		{"local-1430917381534.lz4", false, false},
		{"local-1430917381534.lzf", false, false},
		{"local-1430917381534.snappy", false, false},
		{"local-1430917381534.zstd", false, false},
		{"local-1642039451826.lz4", false, false},
		{"local-1642039451826.lzf", false, false},
		{"local-1642039451826.snappy", false, false},
		{"local-1642039451826.zstd", false, false},
		{"local-1642039451826.inprogress", true, false},       // plain, last line cut
		{"local-1642039451826.zstd.inprogress", false, false}, // complete frames, cut line ends in \n
		{"local-1642039451826.lz4.inprogress", true, true},
		{"local-1642039451826-cut.zstd.inprogress", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, got, r, err := readLog(t, filepath.Join(dir, tt.name), OpenOptions{})
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			inProgress := strings.HasSuffix(tt.name, ".inprogress")
			if l.InProgress != inProgress || l.Codec != codec.FromName(tt.name) {
				t.Errorf("InProgress %v, Codec %s; want %v, %s", l.InProgress, l.Codec, inProgress, codec.FromName(tt.name))
			}
			if r.Truncated() != tt.truncated || (r.Cut() != nil) != tt.cut {
				t.Errorf("Truncated %v, Cut %v; want %v, cut %v", r.Truncated(), r.Cut(), tt.truncated, tt.cut)
			}
			if tt.cut && (!errors.Is(r.Cut(), io.ErrUnexpectedEOF) || !strings.Contains(r.Cut().Error(), tt.name) || !strings.Contains(r.Cut().Error(), "offset")) {
				t.Errorf("Cut %v: want io.ErrUnexpectedEOF naming %s and an offset", r.Cut(), tt.name)
			}
			app := strings.TrimSuffix(tt.name[:strings.IndexByte(tt.name, '.')], "-cut")
			full := readFile(t, sparktest.Path(t, "spark-events", app))
			switch {
			case !inProgress && !bytes.Equal(got, full):
				t.Errorf("got %d bytes, want the %d of %s", len(got), len(full), app)
			case tt.name == "local-1642039451826.zstd.inprogress":
				// Prefix of the log up to the cut line, which the writer ended with \n.
				plain := readFile(t, filepath.Join(dir, "local-1642039451826.inprogress"))
				if !bytes.Equal(got, append(plain, '\n')) {
					t.Errorf("got %d bytes, want the plain in-progress log's %d and a newline", len(got), len(plain))
				}
			case inProgress && !bytes.HasPrefix(full, got):
				t.Errorf("got %d bytes, not a prefix of %s", len(got), app)
			}
		})
	}
}

// TestFinishedLogCutIsError renames a cut lz4 file so it is not in progress.
func TestFinishedLogCutIsError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "local-1642039451826.lz4")
	if err := os.WriteFile(path, readFile(t, sparktest.Path(t, "compressed", "local-1642039451826.lz4.inprogress")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got, r, err := readLog(t, path, OpenOptions{})
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got error %v, want io.ErrUnexpectedEOF", err)
	}
	if want := "eventlog: " + path + ": lz4: offset 58122: block payload cut short"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got error %q, want it to start %q", err, want)
	}
	if r.Err() != err || len(got) == 0 {
		t.Errorf("Err %v after %d bytes; want the same error after the complete blocks", r.Err(), len(got))
	}
}

func TestCodecMismatch(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		src, name string
		named     codec.Codec
		content   codec.Codec
	}{
		{"compressed/local-1430917381534.snappy", "local-1430917381534.lz4", codec.LZ4, codec.Snappy},
		{"compressed/local-1430917381534.zstd", "local-1430917381534.lzf", codec.LZF, codec.ZSTD},
		{"spark-events/local-1430917381534", "local-1430917381534.zstd", codec.ZSTD, codec.None},
		{"compressed/local-1430917381534.zstd", "local-1430917381534", codec.None, codec.ZSTD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, readFile(t, sparktest.Path(t, strings.Split(tt.src, "/")...)), 0o644); err != nil {
				t.Fatal(err)
			}
			logs, err := Open(context.Background(), path, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = logs[0].NewReader(context.Background())
			var m *CodecMismatchError
			if !errors.As(err, &m) || m.Named != tt.named || m.Content != tt.content || !strings.Contains(err.Error(), path) {
				t.Errorf("got error %v, want a mismatch naming %s: %s vs %s", err, path, tt.named, tt.content)
			}
		})
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "nope"), OpenOptions{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got error %v, want fs.ErrNotExist", err)
	}
}

// TestOpenDirectory opens the shared History Server log directory: one Log
// per file and one for the rolling directory, sorted by name.
func TestOpenDirectory(t *testing.T) {
	dir := sparktest.Path(t, "spark-events")
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, de := range des {
		want = append(want, de.Name())
	}
	var skipped []string
	logs, err := Open(context.Background(), dir, OpenOptions{Skipped: func(p string, _ error) { skipped = append(skipped, p) }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range logs {
		got = append(got, l.Name)
	}
	if !slices.Equal(got, want) || len(skipped) != 0 {
		t.Errorf("got logs %v (skipped %v), want %v", got, skipped, want)
	}
	for _, l := range logs {
		if l.Rolling != strings.HasPrefix(l.Name, "eventlog_v2_") || l.InProgress {
			t.Errorf("%s: Rolling %v, InProgress %v", l.Name, l.Rolling, l.InProgress)
		}
	}
}

// TestOpenDirectorySkips opens the compressed set's directory: its codec
// files are logs; the README, the Java source and the directories holding
// rolling directories are skipped, each with its reason.
func TestOpenDirectorySkips(t *testing.T) {
	dir := sparktest.Path(t, "compressed")
	skipped := map[string]error{}
	logs, err := Open(context.Background(), dir, OpenOptions{Skipped: func(p string, why error) { skipped[filepath.Base(p)] = why }})
	if err != nil {
		t.Fatal(err)
	}
	des, _ := os.ReadDir(dir)
	var want []string
	for _, de := range des {
		if !de.IsDir() && (codec.FromName(de.Name()) != codec.None || strings.HasSuffix(de.Name(), ".inprogress")) {
			want = append(want, de.Name())
		}
	}
	var got []string
	for _, l := range logs {
		got = append(got, l.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got logs %v, want %v", got, want)
	}
	wantSkipped := map[string]error{"README.md": ErrNotLog, "SparkLogCodec.java": ErrNotLog, "rolling-lz4": ErrNoLogsDir, "rolling-zstd": ErrNoLogsDir}
	if len(skipped) != len(wantSkipped) {
		t.Errorf("skipped %v, want %v", skipped, wantSkipped)
	}
	for name, why := range wantSkipped {
		if !errors.Is(skipped[name], why) {
			t.Errorf("%s: skipped for %v, want %v", name, skipped[name], why)
		}
	}
}

func TestLogFileName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"local-1430917381534", true},
		{"app-1.lz4", true},
		{"app-1.zstd.inprogress", true},
		{"app-1.inprogress", true},
		{"eventlog", true},
		{"README.md", false},
		{"app.1.lz4", false},
		{"notes.txt", false},
		{".inprogress", false},
		// JSON lines saved by hand: what analyze reads when named alone,
		// serve and analyze DIR read in a directory too.
		{"app-1.ndjson", true},
		{"events.jsonl", true},
		{"app-1.NDJSON", true},
		{"meta.json", false},
		{"app.1.ndjson", false},
	}
	for _, tt := range tests {
		if got := logFileName(tt.name); got != tt.want {
			t.Errorf("logFileName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
